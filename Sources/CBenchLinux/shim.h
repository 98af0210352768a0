// Linux headers that Swift's Glibc module does not include: the benchmark's
// event loop needs epoll and timerfd. Headers only; nothing to link.
#ifndef CBENCHLINUX_SHIM_H
#define CBENCHLINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/timerfd.h>
#endif
