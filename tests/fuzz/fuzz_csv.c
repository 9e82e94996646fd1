/* libFuzzer target: the CSV reader and inspector. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_read(pe_csv_read, data, size, NULL);
	fuzz_inspect(data, size, "x.csv");
	return 0;
}
