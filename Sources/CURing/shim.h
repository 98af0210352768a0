#ifndef FOLDSYNC_CURING_H
#define FOLDSYNC_CURING_H
/// liburing, for CURingShim only: its header sets _GNU_SOURCE and
/// _XOPEN_SOURCE, so Swift modules that see it disagree with every other
/// module on glibc's types. Swift imports CURingShim's plain functions instead.
#include <liburing.h>
#endif
