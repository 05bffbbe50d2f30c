/* Tessera runtime interface: the types and the error reporting shared by every pipeline
 * that Tessera compiles to C, and by the programs that call them.
 *
 * Valid C99 and C++. Generated .c files contain this text inline (they need no Tessera
 * header); generated .h files contain it too, so that a program needs only the header of
 * its pipelines.
 *
 * A pipeline is a function
 *
 *     int NAME(const tessera_buffer_t *input..., <scalar type> param..., tessera_buffer_t *output);
 *
 * that returns TESSERA_SUCCESS (0) or one of the error codes below. On an error it first
 * calls tessera_error_handler (if it is not null) with a message naming the offending
 * buffer or parameter, and it frees everything it allocated. It never aborts. A Func with
 * several values (a Tuple) takes one output buffer per value, in order.
 */
#ifndef TESSERA_RUNTIME_H
#define TESSERA_RUNTIME_H

/* (Code compiled by Tessera's JIT declares these types itself, to spare the parse.) */
#ifndef TESSERA_NO_SYSTEM_HEADERS
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One dimension of a buffer: the coordinates min .. min + extent - 1, and the distance in
 * elements between consecutive coordinates (any sign). */
typedef struct tessera_dim_t {
    int32_t min;
    int32_t extent;
    int64_t stride;
} tessera_dim_t;

/* Element type codes (tessera_buffer_t::type_code). */
#define TESSERA_TYPE_INT 0
#define TESSERA_TYPE_UINT 1
#define TESSERA_TYPE_FLOAT 2
#define TESSERA_TYPE_BOOL 3 /* type_bits is 1; each element is one byte holding 0 or 1 */

/* An N-dimensional array the caller owns. The element at coordinates (c_0, ..., c_{N-1})
 * is at element offset sum_i (c_i - dim[i].min) * dim[i].stride from host. */
typedef struct tessera_buffer_t {
    void *host;
    int32_t type_code;  /* TESSERA_TYPE_* */
    int32_t type_bits;  /* 8, 16, 32 or 64 (1 for bool) */
    int32_t dimensions;
    tessera_dim_t *dim; /* dimensions entries */
} tessera_buffer_t;

/* Return codes of a pipeline. */
#define TESSERA_SUCCESS 0
/* A check of the pipeline failed: an input buffer too small, a parameter out of range, a
 * negative reduction extent, a schedule's assertion. */
#define TESSERA_ERROR_ASSERTION 1
/* A buffer argument is null, has no memory, or has the wrong type or dimensionality. */
#define TESSERA_ERROR_BAD_BUFFER 2
/* The output buffer overlaps an input buffer. */
#define TESSERA_ERROR_BUFFER_OVERLAP 3
/* An internal allocation has a negative or unrepresentable size. */
#define TESSERA_ERROR_ALLOCATION_SIZE 4
/* An internal allocation failed (malloc returned null). */
#define TESSERA_ERROR_OUT_OF_MEMORY 5

/* The function a pipeline calls with the message of an error before it returns the error
 * code. Every generated .c file defines this variable as a weak symbol whose initial value
 * prints the message to stderr. A program may assign its own function (or null, to stay
 * silent) at any time, or define the variable itself:
 *
 *     void (*tessera_error_handler)(const char *message) = my_handler;
 */
typedef void (*tessera_error_handler_t)(const char *message);
extern tessera_error_handler_t tessera_error_handler;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_RUNTIME_H */
