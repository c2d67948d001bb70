/* version_report.h - `dnsbatch version`: the program's version, its libraries' and its features. */
#ifndef DNSBATCH_CLI_VERSION_REPORT_H
#define DNSBATCH_CLI_VERSION_REPORT_H

/*
 * Print "dnsbatch VERSION" (the line --version prints alone), then the version
 * of each library as the library reports it at run time (the shared object
 * loaded, which may differ from the headers built against), then the features
 * built in: the provider backends, the webhook server, the sanitizers.
 * @return DNSB_EXIT_OK
 */
int dnsb_cli_version_report(void);

#endif
