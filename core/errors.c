/* errors.c — names and sentences for core's error codes, generated from
 * the one CUBE_ERRORS list in cube.h. */
#include "cube.h"

const char *cube_errname(int err)
{
	switch (err) {
	case CUBE_OK:
		return "ok";
#define CUBE_ERR_NAME(name, value, code, msg)                                  \
	case name:                                                             \
		return code;
		CUBE_ERRORS(CUBE_ERR_NAME)
#undef CUBE_ERR_NAME
	}
	return "unknown_error";
}

const char *cube_strerror(int err)
{
	switch (err) {
	case CUBE_OK:
		return "success";
#define CUBE_ERR_MSG(name, value, code, msg)                                   \
	case name:                                                             \
		return msg;
		CUBE_ERRORS(CUBE_ERR_MSG)
#undef CUBE_ERR_MSG
	}
	return "unknown error";
}
