#include <curl/curl.h>

// curl_easy_setopt is variadic, which Swift cannot call: one typed wrapper per kind of value.
static inline CURLcode pinhole_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pinhole_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pinhole_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pinhole_curl_set_read_function(
    CURL *handle, size_t (*function)(char *buffer, size_t size, size_t count, void *context)) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, function);
}

// curl_easy_getinfo is variadic too: the last SMTP reply code.
static inline long pinhole_curl_response_code(CURL *handle) {
    long code = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
