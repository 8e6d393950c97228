/*
 * void coro_switch_asm(void **save_sp, void *load_sp)
 * Saves the System V callee-saved registers and the x87/SSE control words
 * on the current stack, stores the stack pointer, loads the other one.
 */
	.text
	.globl	coro_switch_asm
	.type	coro_switch_asm, @function
coro_switch_asm:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	subq	$8, %rsp
	stmxcsr	(%rsp)
	fnstcw	4(%rsp)
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	ldmxcsr	(%rsp)
	fldcw	4(%rsp)
	addq	$8, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.size	coro_switch_asm, .-coro_switch_asm

/* First entry of a new coroutine: r12 = function, r13 = argument. */
	.globl	coro_trampoline
	.type	coro_trampoline, @function
coro_trampoline:
	movq	%r12, %rdi
	movq	%r13, %rsi
	callq	coro_entry
	ud2
	.size	coro_trampoline, .-coro_trampoline

	.section .note.GNU-stack,"",@progbits
