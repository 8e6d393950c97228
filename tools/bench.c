void bench_dummy(void);
