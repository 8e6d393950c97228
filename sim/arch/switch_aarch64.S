/*
 * void coro_switch_asm(void **save_sp, void *load_sp)
 * Saves the AAPCS64 callee-saved registers (x19-x30, d8-d15) and fpcr.
 */
	.text
	.globl	coro_switch_asm
	.type	coro_switch_asm, %function
coro_switch_asm:
	sub	sp, sp, #176
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	mrs	x9, fpcr
	str	x9, [sp, #160]
	mov	x9, sp
	str	x9, [x0]
	mov	sp, x1
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	ldp	d8, d9, [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	ldr	x9, [sp, #160]
	msr	fpcr, x9
	add	sp, sp, #176
	ret
	.size	coro_switch_asm, .-coro_switch_asm

/* First entry of a new coroutine: x19 = function, x20 = argument. */
	.globl	coro_trampoline
	.type	coro_trampoline, %function
coro_trampoline:
	mov	x0, x19
	mov	x1, x20
	bl	coro_entry
	brk	#0
	.size	coro_trampoline, .-coro_trampoline

	.section .note.GNU-stack,"",%progbits
