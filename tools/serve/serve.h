/*
 * kwsim serve: the scenario library over HTTP on libevent's evhttp, for a
 * browser on the same machine (docs/browser.md "kwsim serve").
 *
 *   kwsim serve [--port P] [--bind ADDR] [--root DIR] [--time-limit S]
 *               [--cpu-limit S] [--mem-limit MB] [--output-limit MB] [--max-sims N]
 *
 * Each run or exploration runs in a child process (tools/lib/jobs.h), to its
 * end or to the server's bounds (steps and bytes) and limits (wall and CPU
 * time, memory, output): the deterministic core never waits on the network,
 * and the event loop never waits on the core. What a browser watches live
 * is the finished run's document (tools/html/html.h), sent as server-sent
 * events paced by a timer of the event loop.
 */
#ifndef KWSIM_SERVE_H
#define KWSIM_SERVE_H

int kwsim_serve(int argc, char **argv);

#endif
