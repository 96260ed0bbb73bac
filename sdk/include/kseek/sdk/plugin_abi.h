/* The C-level handshake between `kseek` and a plugin library: the descriptor is read and checked before
 * any C++ object crosses. It must never change layout without bumping KSEEK_PLUGIN_ABI_VERSION. */
#ifndef KSEEK_SDK_PLUGIN_ABI_H
#define KSEEK_SDK_PLUGIN_ABI_H

#include <stdint.h>

/* Version of this descriptor and of the C++ Plugin interface behind it (plugin.hpp). */
#define KSEEK_PLUGIN_ABI_VERSION 1u

#define KSEEK_PLUGIN_DESCRIPTOR_SYMBOL "kseek_plugin_descriptor"
#define KSEEK_PLUGIN_CREATE_SYMBOL "kseek_plugin_create"
#define KSEEK_PLUGIN_DESTROY_SYMBOL "kseek_plugin_destroy"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kseek_plugin_descriptor_t {
  uint32_t abi_version;          /* KSEEK_PLUGIN_ABI_VERSION the plugin was built against */
  uint32_t descriptor_size;      /* sizeof(kseek_plugin_descriptor_t) as the plugin saw it */
  const char* sdk_version;       /* "MAJOR.MINOR.PATCH" of the SDK headers used */
  const char* plugin_id;         /* stable dotted id, e.g. "attention.fa3" */
  const char* plugin_version;    /* the plugin's own version */
  const char* build_fingerprint; /* "key=value;..." describing the C++ ABI the plugin was built with */
} kseek_plugin_descriptor_t;

/* Every plugin exports these three (plugin.hpp's KSEEK_PLUGIN macro defines them). */
typedef const kseek_plugin_descriptor_t* (*kseek_plugin_descriptor_fn)(void);
typedef void* (*kseek_plugin_create_fn)(void); /* returns a kseek::Plugin* */
typedef void (*kseek_plugin_destroy_fn)(void*);

#ifdef __cplusplus
}
#endif

#endif /* KSEEK_SDK_PLUGIN_ABI_H */
