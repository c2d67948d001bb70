/*
 * dnsbatch/version.h - the library's version, apart from the rest of the API
 * (as curl's curlver.h and libgit2's git2/version.h): a backend names it in
 * its HTTP User-Agent without including the umbrella header. dnsbatch.h
 * includes it. The Makefile reads the version for dnsbatch.pc from here.
 */
#ifndef DNSBATCH_VERSION_H
#define DNSBATCH_VERSION_H

/** "MAJOR.MINOR.PATCH", a string literal. */
#define DNSBATCH_VERSION "0.1.0"

#endif
