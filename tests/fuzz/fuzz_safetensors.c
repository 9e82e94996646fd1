/* libFuzzer target: the safetensors reader, inspector and tensor lookup. */
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_read(pe_safetensors_read, data, size, NULL);
	fuzz_read(pe_safetensors_read, data, size, "wpe.weight");
	struct pe_file_info *info = NULL;
	char *err = NULL;
	enum pe_status st = pe_file_inspect_buffer(data, size, "x.safetensors", &info, &err);
	fuzz_check(st, err);
	if (st == PE_OK) {
		/* Every listed tensor lies inside the buffer. */
		for (size_t i = 0; i < info->count; i++) {
			const struct pe_tensor_info *t = &info->tensors[i];
			if (t->offset > size || t->nbytes > size - t->offset)
				abort();
			if (i < 4)
				fuzz_read(pe_safetensors_read, data, size, t->name);
		}
	}
	pe_file_info_destroy(info);
	return 0;
}
