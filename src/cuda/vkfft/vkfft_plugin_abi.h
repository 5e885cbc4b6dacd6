/* The C interface between the library and the vkfft-conv module (libsarfuse_vkfft.so). */
#pragma once
#ifdef __cplusplus
extern "C" {
#endif
/* Plans VkFFT convolution of `lines` lines of n complex64 at pitch n, in place, on `stream`. kernel_time:
 * n complex64 (interleaved) whose FFT, conjugated and divided by n, is the range filter. With
 * zero_pad_columns, VkFFT's own zero padding: input columns >= nr are not read (taken as zero) and only
 * the first nr output columns are valid; without it, all n columns are read and written. Returns a
 * handle, or NULL with a message in `error`. */
void* sarfuse_vkfft_conv_create(int n, int lines, int nr, int zero_pad_columns, const float* kernel_time,
                                void* stream, char* error, int error_len);
/* Enqueues one convolution of `data` (device memory) on the plan's stream; 0 on success. */
int sarfuse_vkfft_conv_run(void* handle, void* data, char* error, int error_len);
void sarfuse_vkfft_conv_destroy(void* handle);
#ifdef __cplusplus
}
#endif
