/*
 * Every variant defines the kernel's global names; to link several into one
 * binary, each is compiled with its own prefix (KW_NS). The code keeps the
 * kernel's spelling: only the object file's symbols change.
 */
#define KW_PASTE2(a, b) a##b
#define KW_PASTE(a, b) KW_PASTE2(a, b)
#define KW_SYM(x) KW_PASTE(KW_NS, x)

#define __kthread_init_worker		KW_SYM(__kthread_init_worker)
#define kthread_worker_fn		KW_SYM(kthread_worker_fn)
#define kthread_create_worker		KW_SYM(kthread_create_worker)
#define kthread_create_worker_on_cpu	KW_SYM(kthread_create_worker_on_cpu)
#define kthread_queue_work		KW_SYM(kthread_queue_work)
#define kthread_delayed_work_timer_fn	KW_SYM(kthread_delayed_work_timer_fn)
#define kthread_queue_delayed_work	KW_SYM(kthread_queue_delayed_work)
#define kthread_flush_work		KW_SYM(kthread_flush_work)
#define kthread_mod_delayed_work	KW_SYM(kthread_mod_delayed_work)
#define kthread_cancel_work_sync	KW_SYM(kthread_cancel_work_sync)
#define kthread_cancel_delayed_work_sync KW_SYM(kthread_cancel_delayed_work_sync)
#define kthread_flush_worker		KW_SYM(kthread_flush_worker)
#define kthread_destroy_worker		KW_SYM(kthread_destroy_worker)
#define KW_STR(x) #x
#define KW_XSTR(x) KW_STR(x)
#define KW_NS_STR KW_XSTR(KW_NS)
