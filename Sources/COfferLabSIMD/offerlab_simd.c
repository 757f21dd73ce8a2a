// The target's functions are `static inline` in its header; SwiftPM needs one source file.
#include "offerlab_simd.h"
