/*
 * WIDE_CLONES: a loop marked with it vectorises to the widest vectors the
 * machine has when the compiler can build clones for them (picked once at
 * load time). The arithmetic is the same in every clone (no contraction:
 * -ffp-contract=off), so are the results.
 */
#ifndef POSENC_CORE_WIDE_CLONES_H
#define POSENC_CORE_WIDE_CLONES_H

#if defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define WIDE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef WIDE_CLONES
#define WIDE_CLONES
#endif

#endif
