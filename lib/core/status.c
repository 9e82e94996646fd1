#include <posenc/status.h>

const char *pe_status_str(enum pe_status status)
{
	switch (status) {
	case PE_OK:
		return "success";
	case PE_ENOMEM:
		return "out of memory";
	case PE_EINVAL:
		return "invalid argument";
	case PE_ERANGE:
		return "value out of range";
	case PE_EUNSUPPORTED:
		return "not supported for this scheme";
	case PE_EIO:
		return "input/output error";
	case PE_EFORMAT:
		return "malformed file";
	case PE_ETOOBIG:
		return "result too large";
	case PE_ENOTFOUND:
		return "not found";
	}
	return "unknown status";
}
