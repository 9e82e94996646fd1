#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"

/* Temporary files to remove when a signal ends the run. */
#define MAX_TEMPS 16
static char *volatile temps[MAX_TEMPS];

static void on_signal(int sig)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (temps[i])
			unlink(temps[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void cli_output_install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/*
	 * A closed pipe becomes EPIPE and a file size limit (ulimit -f, a
	 * quota) EFBIG: reported as errors, with the temporary file removed,
	 * instead of a silent death that leaves it behind.
	 */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

static void temps_add(char *path)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (!temps[i]) {
			temps[i] = path;
			return;
		}
}

static void temps_remove(const char *path)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (temps[i] == path)
			temps[i] = NULL;
}

int cli_format_is_figure(enum cli_format f)
{
	return f == CLI_FORMAT_PNG || f == CLI_FORMAT_SVG || f == CLI_FORMAT_PDF;
}

const char *cli_output_path(const struct cli_common *o, char *buf, size_t cap)
{
	if (o->output)
		return o->output;
	snprintf(buf, cap, "%s.png", cli_command_name ? cli_command_name : "posenc");
	return buf;
}

static int has_ext(const char *path, const char *ext)
{
	size_t lp = strlen(path), le = strlen(ext);
	if (lp <= le)
		return 0;
	for (size_t i = 0; i < le; i++) {
		char c = path[lp - le + i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != ext[i])
			return 0;
	}
	return 1;
}

int cli_output_format(const struct cli_common *o, const char *path, enum cli_format *out)
{
	static const struct {
		const char *ext;
		enum cli_format format;
	} exts[] = {
	        {".csv", CLI_FORMAT_CSV},  {".npy", CLI_FORMAT_NPY}, {".png", CLI_FORMAT_PNG},
	        {".svg", CLI_FORMAT_SVG},  {".pdf", CLI_FORMAT_PDF}, {".html", CLI_FORMAT_HTML},
	        {".htm", CLI_FORMAT_HTML},
	};
	int found = 0;
	if (strcmp(path, "-") == 0) {
		*out = CLI_FORMAT_CSV;
		found = 1;
	}
	for (size_t i = 0; !found && i < sizeof(exts) / sizeof(exts[0]); i++) {
		if (has_ext(path, exts[i].ext)) {
			*out = exts[i].format;
			found = 1;
		}
	}
	struct stat st;
	if (!found && stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		/* /dev/stdout, a named pipe: a stream, like "-". */
		*out = CLI_FORMAT_CSV;
		found = 1;
	}
	if (!found)
		return cli_usage_error("output '%s': unknown format (use .png, .svg, .pdf, .csv, "
		                       ".npy, or - for CSV on stdout)",
		                       path);
	if (o->dtype == PE_DTYPE_F32 && *out != CLI_FORMAT_NPY)
		return cli_usage_error("option '--dtype' applies to .npy output, not '%s'", path);
	if (o->raw && *out != CLI_FORMAT_PNG)
		return cli_usage_error("option '--raw' writes a PNG, not '%s'", path);
	return 0;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int cli_file_open(struct cli_file *file, const char *path)
{
	memset(file, 0, sizeof(*file));
	if (strcmp(path, "-") == 0) {
		file->f = stdout;
		file->is_stdout = 1;
		return 0;
	}
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return cli_error("cannot write '%s': Is a directory", path);
		if (!S_ISREG(st.st_mode)) {
			/* Devices and FIFOs cannot be replaced: write to them directly. */
			file->f = fopen(path, "wb");
			if (!file->f)
				return cli_error("cannot write '%s': %s", path, strerror(errno));
			file->path = strdup(path);
			return 0;
		}
		if (access(path, W_OK) != 0)
			return cli_error("cannot write '%s': %s", path, strerror(errno));
	}
	char *dir = dir_of(path);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t len = (dir ? strlen(dir) : 0) + strlen(base) + 32;
	char *tmp = malloc(len);
	if (!dir || !tmp) {
		free(dir);
		free(tmp);
		return cli_error("out of memory");
	}
	snprintf(tmp, len, "%s/.%s.posenc-XXXXXX", dir, base);
	free(dir);
	/* No signal between creating the file and registering it for removal. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	int fd = mkstemp(tmp);
	if (fd >= 0)
		temps_add(tmp);
	int e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		free(tmp);
		return cli_error("cannot write '%s': %s", path, strerror(e));
	}
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	file->f = fdopen(fd, "wb");
	if (!file->f) {
		e = errno;
		close(fd);
		unlink(tmp);
		temps_remove(tmp);
		free(tmp);
		return cli_error("cannot write '%s': %s", path, strerror(e));
	}
	file->tmp = tmp;
	file->path = strdup(path);
	if (!file->path) {
		cli_file_abort(file);
		return cli_error("out of memory");
	}
	return 0;
}

void cli_file_abort(struct cli_file *file)
{
	if (file->f && !file->is_stdout)
		fclose(file->f);
	file->f = NULL;
	if (file->tmp) {
		unlink(file->tmp);
		temps_remove(file->tmp);
		free(file->tmp);
		file->tmp = NULL;
	}
	free(file->path);
	file->path = NULL;
}

int cli_file_commit(struct cli_file *file)
{
	const char *name = file->is_stdout ? "standard output" : file->path;
	int failed = fflush(file->f) != 0 || ferror(file->f);
	int e = errno;
	if (!file->is_stdout) {
		failed |= fclose(file->f) != 0;
		if (failed)
			e = errno;
	}
	file->f = NULL;
	if (failed) {
		int rc = cli_error("writing %s%s%s failed: %s", file->is_stdout ? "" : "'", name,
		                   file->is_stdout ? "" : "'", strerror(e));
		cli_file_abort(file);
		return rc;
	}
	if (file->tmp) {
		if (rename(file->tmp, file->path) != 0) {
			int rc = cli_error("cannot write '%s': %s", file->path, strerror(errno));
			cli_file_abort(file);
			return rc;
		}
		temps_remove(file->tmp);
		free(file->tmp);
		file->tmp = NULL;
	}
	free(file->path);
	file->path = NULL;
	return 0;
}

void cli_report_written(const struct cli_common *o, const char *path, const char *what)
{
	if (strcmp(path, "-") != 0)
		cli_note(o->quiet, "wrote %s (%s)", path, what);
}

int cli_write_matrix(const struct cli_common *o, const char *path, enum cli_format format,
                     const struct pe_matrix *m, const struct pe_axis *rows,
                     const struct pe_axis *cols)
{
	struct cli_file file;
	int rc = cli_file_open(&file, path);
	if (rc)
		return rc;
	enum pe_status st;
	if (format == CLI_FORMAT_NPY)
		st = pe_npy_write_matrix(file.f, m, o->dtype);
	else
		st = pe_csv_write(file.f, m, rows, cols);
	if (st != PE_OK) {
		int e = errno;
		const char *name = file.is_stdout ? "standard output" : path;
		cli_file_abort(&file);
		if (st == PE_EIO)
			return cli_error("writing '%s' failed: %s", name, strerror(e));
		return cli_error("writing '%s' failed: %s", name, pe_status_str(st));
	}
	rc = cli_file_commit(&file);
	if (rc)
		return rc;
	char what[96];
	snprintf(what, sizeof(what), "%zu x %zu %s", m->rows, m->cols,
	         format == CLI_FORMAT_NPY
	                 ? (o->dtype == PE_DTYPE_F32 ? "float32 array" : "float64 array")
	                 : "table");
	cli_report_written(o, path, what);
	return 0;
}
