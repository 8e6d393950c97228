/*
 * kwsim serve: the scenario library over HTTP on libevent's evhttp, for a
 * browser on the same machine (README "kwsim serve").
 *
 *   kwsim serve [--port P] [--bind ADDR] [--root DIR]
 *
 * The machine is the process's and runs one scenario at a time, inside a
 * request's callback, to its end or to the server's bounds (steps and
 * bytes): the deterministic core never waits on the network. What a browser
 * watches live is the finished run's document (tools/html/html.h), sent as
 * server-sent events paced by a timer of the event loop.
 */
#ifndef KWSIM_SERVE_H
#define KWSIM_SERVE_H

int kwsim_serve(int argc, char **argv);

#endif
