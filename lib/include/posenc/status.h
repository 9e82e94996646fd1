/*
 * posenc/status.h - status codes of the posenc library
 *
 * Every fallible library function returns an enum pe_status; results come
 * back through out-parameters. The library never prints and never exits:
 * turning a status into a message is the caller's job (pe_status_str()).
 * The numeric values are part of the ABI and never change.
 */
#ifndef POSENC_STATUS_H
#define POSENC_STATUS_H

/*
 * PE_API marks what the shared libraries export: they are built with hidden
 * symbol visibility, and only functions declared with PE_API in the public
 * headers are part of their ABI (tests/packaging/test_symbols.py checks
 * that nm -D lists exactly those).
 */
#if defined(__GNUC__) || defined(__clang__)
#define PE_API __attribute__((visibility("default")))
#else
#define PE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum pe_status {
	PE_OK = 0,           /* success */
	PE_ENOMEM = 1,       /* an allocation failed */
	PE_EINVAL = 2,       /* an argument or spec value is malformed */
	PE_ERANGE = 3,       /* a value is outside what the operation accepts */
	PE_EUNSUPPORTED = 4, /* the scheme cannot do this analysis or view */
	PE_EIO = 5,          /* reading or writing a stream failed (see errno) */
	PE_EFORMAT = 6,      /* a file's contents are malformed */
	PE_ETOOBIG = 7,      /* the result would not fit in memory or size_t */
	PE_ENOTFOUND = 8,    /* a named item (tensor, key) does not exist */
};

/*
 * pe_status_str() - a short lower-case description of a status
 *
 * @return a static string ("out of memory", ...); never NULL, also for
 * values outside the enum. The caller must not free it.
 */
PE_API const char *pe_status_str(enum pe_status status);

#ifdef __cplusplus
}
#endif

#endif
