#include "offerlab_isal.h"

#if defined(__has_include) && __has_include(<isa-l/igzip_lib.h>)

#include <dlfcn.h>
#include <isa-l/igzip_lib.h>
#include <pthread.h>
#include <stdlib.h>

// The three entry points, looked up in libisal.so.2 (linking it would make it a build
// requirement). Its soname fixes the ABI, so the header's struct layout is the library's.
static void (*inflate_init)(struct inflate_state *);
static void (*inflate_reset)(struct inflate_state *);
static int (*inflate_run)(struct inflate_state *);
static int loaded;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libisal.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
    *(void **)&inflate_init = dlsym(library, "isal_inflate_init");
    *(void **)&inflate_reset = dlsym(library, "isal_inflate_reset");
    *(void **)&inflate_run = dlsym(library, "isal_inflate");
    loaded = inflate_init != NULL && inflate_reset != NULL && inflate_run != NULL;
}

int offerlab_isal_available(void) {
    pthread_once(&load_once, load);
    return loaded;
}

int offerlab_isal_built_in(void) { return 1; }

struct offerlab_isal_inflater {
    struct inflate_state state;
};

offerlab_isal_inflater *offerlab_isal_create(void) {
    if (!offerlab_isal_available()) return NULL;
    // Zeroed: on damaged data ISA-L's decoder can copy a match that reaches back before the
    // member's start out of the state's own memory (its input and output windows) before it
    // reports the damage. Uninitialised, those bytes would be whatever the process freed
    // there before (another file's data), so the bytes handed out before the error, and which
    // error a caller then sees, would depend on what was read earlier.
    offerlab_isal_inflater *inflater = calloc(1, sizeof *inflater);
    if (inflater == NULL) return NULL;
    inflate_init(&inflater->state);
    inflater->state.crc_flag = ISAL_GZIP;
    return inflater;
}

void offerlab_isal_destroy(offerlab_isal_inflater *inflater) { free(inflater); }

void offerlab_isal_reset(offerlab_isal_inflater *inflater) {
    // The state's memory is not cleared again: all a damaged member can copy from it is this
    // file's earlier bytes, which are the same whatever the process read before.
    inflate_reset(&inflater->state);
    // Reset clears the wrapper state; the member is gzip again.
    inflater->state.crc_flag = ISAL_GZIP;
}

int offerlab_isal_inflate(
    offerlab_isal_inflater *inflater, const uint8_t *input, size_t input_count, uint8_t *output,
    size_t output_count, size_t *consumed, size_t *produced, int *member_ended) {
    struct inflate_state *state = &inflater->state;
    // ISA-L counts in 32 bits; the reader's buffers are far smaller, but never overflow.
    uint32_t available_in = input_count > UINT32_MAX ? UINT32_MAX : (uint32_t)input_count;
    uint32_t available_out = output_count > UINT32_MAX ? UINT32_MAX : (uint32_t)output_count;
    state->next_in = (uint8_t *)input;
    state->avail_in = available_in;
    state->next_out = output;
    state->avail_out = available_out;
    int status = inflate_run(state);
    *consumed = available_in - state->avail_in;
    *produced = available_out - state->avail_out;
    *member_ended = state->block_state == ISAL_BLOCK_FINISH;
    return status;
}

#else

// Built without ISA-L's header: never available, so callers use zlib.
int offerlab_isal_available(void) { return 0; }
int offerlab_isal_built_in(void) { return 0; }
offerlab_isal_inflater *offerlab_isal_create(void) { return NULL; }
void offerlab_isal_destroy(offerlab_isal_inflater *inflater) { (void)inflater; }
void offerlab_isal_reset(offerlab_isal_inflater *inflater) { (void)inflater; }
int offerlab_isal_inflate(
    offerlab_isal_inflater *inflater, const uint8_t *input, size_t input_count, uint8_t *output,
    size_t output_count, size_t *consumed, size_t *produced, int *member_ended) {
    (void)inflater; (void)input; (void)input_count; (void)output; (void)output_count;
    *consumed = 0;
    *produced = 0;
    *member_ended = 0;
    return OFFERLAB_ISAL_INVALID_WRAPPER;
}

#endif
