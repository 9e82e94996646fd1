#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "shared/memio.h"
#include "shared/output.h"

/* Temporary files to remove when a signal ends the run. */
#define MAX_TEMPS 16
static char *volatile temps[MAX_TEMPS];

/*
 * The signals whose default action ends the process and that a handler can
 * catch: each removes the temporary files, then ends the process by the
 * same signal (so the parent sees what happened). SIGPIPE and SIGXFSZ are
 * ignored instead (see below). Under AddressSanitizer the fault signals
 * stay with the sanitizer, which reports them.
 */
static const int fatal_signals[] = {
        SIGINT,    SIGTERM, SIGHUP,  SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2,
        SIGVTALRM, SIGPROF, SIGXCPU, SIGPOLL, SIGABRT, SIGTRAP, SIGSYS,
#ifndef __SANITIZE_ADDRESS__
        SIGSEGV,   SIGBUS,  SIGFPE,  SIGILL,
#endif
};
#define NFATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

/* Set once an error writing standard output has been reported. */
static int stdout_reported;

static void remove_temps(void)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (temps[i])
			unlink(temps[i]);
}

static void on_signal(int sig)
{
	remove_temps();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * A reader that stopped early (posenc ... -o - | head) is not an error: end
 * as GNU tools do, quietly, by SIGPIPE (the shell sees status 141).
 */
_Noreturn static void die_of_sigpipe(void)
{
	remove_temps();
	signal(SIGPIPE, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(SIGPIPE);
	_exit(CLI_FAILURE);
}

int cli_stdout_failed(int e)
{
	if (e == EPIPE)
		die_of_sigpipe();
	stdout_reported = 1;
	return cli_error("writing standard output failed: %s",
	                 e ? strerror(e) : "input/output error");
}

/*
 * At exit: what --help, --version, help and inspect printed must have
 * reached standard output, or the run fails (like GNU's close_stdout).
 */
static void close_stdout(void)
{
	errno = 0;
	int failed = fflush(stdout) != 0;
	int e = errno;
	failed |= ferror(stdout) != 0;
	if (fclose(stdout) != 0 && !failed) {
		failed = 1;
		e = errno;
	}
	if (!failed || stdout_reported)
		return;
	cli_stdout_failed(e);
	fflush(stderr);
	_exit(CLI_FAILURE);
}

void cli_output_install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NFATAL; i++) {
		struct sigaction old;
		/* A signal ignored by whoever started us stays ignored (nohup). */
		if (sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(fatal_signals[i], &sa, NULL);
	}
	/*
	 * A closed pipe becomes EPIPE (then a quiet SIGPIPE death, see
	 * die_of_sigpipe) and a file size limit (ulimit -f, a quota) EFBIG:
	 * reported as an error, with the temporary file removed, instead of a
	 * silent death that leaves it behind.
	 */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	atexit(close_stdout);
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
	        {".csv", CLI_FORMAT_CSV}, {".npy", CLI_FORMAT_NPY}, {".png", CLI_FORMAT_PNG},
	        {".svg", CLI_FORMAT_SVG}, {".pdf", CLI_FORMAT_PDF},
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
	/* Only report writes HTML (it checks its own extensions): a table
	 * written into a file named .html would be CSV under a false name. */
	if (!found && (has_ext(path, ".html") || has_ext(path, ".htm")))
		return cli_usage_error("output '%s': %s does not write HTML (use .png, .svg, .pdf, "
		                       ".csv, .npy or -; 'posenc report' writes HTML)",
		                       path, cli_command_name ? cli_command_name : "this command");
	if (!found)
		return cli_usage_error("output '%s': unknown format (use .png, .svg, .pdf, .csv, "
		                       ".npy, or - for CSV on stdout)",
		                       path);
	return cli_options_apply_to(o, path, *out);
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

/*
 * The file a path names once its symbolic links are followed (the last
 * one may dangle: then the file it names is created). newly allocated;
 * NULL with errno set (ELOOP after 40 links, as the kernel counts).
 */
static char *follow_links(const char *path)
{
	char *cur = strdup(path);
	for (int hops = 0; cur; hops++) {
		struct stat st;
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return cur;
		if (hops == 40) {
			free(cur);
			errno = ELOOP;
			return NULL;
		}
		size_t cap = (size_t)st.st_size + 1;
		if (cap < 256)
			cap = 256;
		char *link = malloc(cap);
		ssize_t len = link ? readlink(cur, link, cap) : -1;
		if (len < 0 || (size_t)len >= cap) {
			free(link);
			free(cur);
			if (len >= 0)
				errno = ENAMETOOLONG;
			return NULL;
		}
		link[len] = '\0';
		char *next;
		if (link[0] == '/' || !strchr(cur, '/')) {
			next = link;
		} else {
			/* Relative to the folder that holds the link. */
			char *dir = dir_of(cur);
			size_t n = (dir ? strlen(dir) : 0) + (size_t)len + 2;
			next = dir ? malloc(n) : NULL;
			if (next)
				snprintf(next, n, "%s/%s", dir, link);
			free(dir);
			free(link);
		}
		free(cur);
		cur = next;
	}
	return NULL;
}

int cli_file_open(struct cli_file *file, const char *path)
{
	memset(file, 0, sizeof(*file));
	if (strcmp(path, "-") == 0) {
		file->f = stdout;
		file->is_stdout = 1;
		return 0;
	}
	if (cli_memio_on) {
		/* The Python package: the output is kept in memory under its name. */
		file->f = open_memstream(&file->mem, &file->mem_len);
		file->name = strdup(path);
		if (!file->f || !file->name) {
			cli_file_abort(file);
			return cli_error("out of memory");
		}
		return 0;
	}
	/*
	 * -o through a symbolic link writes the file it points to (atomically,
	 * like any file): the link stays a link.
	 */
	char *target = follow_links(path);
	if (!target)
		return cli_error("cannot write '%s': %s", path, strerror(errno));
	struct stat st;
	int exists = stat(target, &st) == 0;
	if (exists) {
		int rc = 0;
		if (S_ISDIR(st.st_mode)) {
			rc = cli_error("cannot write '%s': Is a directory", path);
		} else if (!S_ISREG(st.st_mode)) {
			/* Devices and FIFOs cannot be replaced: write to them directly. */
			file->f = fopen(target, "wb");
			if (!file->f) {
				rc = cli_error("cannot write '%s': %s", path, strerror(errno));
			} else if (isatty(fileno(file->f)) &&
			           (has_ext(path, ".npy") || has_ext(path, ".png") ||
			            has_ext(path, ".pdf"))) {
				/* as -o - refuses them: binary bytes would scramble the terminal */
				fclose(file->f);
				file->f = NULL;
				rc = cli_error(
				        "cannot write '%s': it is a terminal, and NPY, PNG and "
				        "PDF are binary (write to a file or a pipe)",
				        path);
			} else {
				file->direct = 1;
			}
		} else if (access(target, W_OK) != 0) {
			rc = cli_error("cannot write '%s': %s", path, strerror(errno));
		} else if (st.st_nlink > 1) {
			/*
			 * Replacing one name of a hard-linked file would split it:
			 * the other names would keep the old contents. Refused;
			 * the user decides (remove the name, or write elsewhere).
			 */
			rc = cli_error("cannot write '%s': it has %ju hard links, and replacing it "
			               "would leave the others with the old contents (remove it "
			               "first, or write to another name)",
			               path, (uintmax_t)st.st_nlink);
		}
		if (rc || file->direct) {
			if (rc) {
				free(target);
				return rc;
			}
			file->path = target;
			file->name = strdup(path);
			if (!file->name) {
				cli_file_abort(file);
				return cli_error("out of memory");
			}
			return 0;
		}
	}
	char *dir = dir_of(target);
	const char *base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	size_t len = (dir ? strlen(dir) : 0) + strlen(base) + 32;
	char *tmp = malloc(len);
	if (!dir || !tmp) {
		free(dir);
		free(tmp);
		free(target);
		return cli_error("out of memory");
	}
	snprintf(tmp, len, "%s/.%s.posenc-XXXXXX", dir, base);
	free(dir);
	/* No signal between creating the file and registering it for removal. */
	sigset_t block, old;
	sigemptyset(&block);
	for (size_t i = 0; i < NFATAL; i++)
		sigaddset(&block, fatal_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	int fd = mkstemp(tmp);
	if (fd >= 0)
		temps_add(tmp);
	int e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		free(tmp);
		free(target);
		return cli_error("cannot write '%s': %s", path, strerror(e));
	}
	if (exists) {
		/*
		 * The replacement keeps the mode of the file it replaces (a 0600
		 * file stays private) and, where we may set it, its owner and
		 * group. A group we cannot give it takes the group's permission
		 * bits with it, so nothing becomes readable by a group that could
		 * not read it before.
		 */
		mode_t mode = st.st_mode & 07777;
		if (st.st_uid != geteuid() || st.st_gid != getegid()) {
			if (fchown(fd, geteuid() == 0 ? st.st_uid : (uid_t)-1, st.st_gid) != 0) {
				mode &= (mode_t)~070;
				if (geteuid() == 0 && fchown(fd, st.st_uid, (gid_t)-1) != 0)
					mode &= (mode_t)~07;
			}
		}
		fchmod(fd, mode);
	} else {
		mode_t mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	file->f = fdopen(fd, "wb");
	if (!file->f) {
		e = errno;
		close(fd);
		unlink(tmp);
		temps_remove(tmp);
		free(tmp);
		free(target);
		return cli_error("cannot write '%s': %s", path, strerror(e));
	}
	file->tmp = tmp;
	file->path = target;
	file->name = strdup(path);
	if (!file->name) {
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
	free(file->mem);
	file->mem = NULL;
	if (file->tmp) {
		unlink(file->tmp);
		temps_remove(file->tmp);
		free(file->tmp);
		file->tmp = NULL;
	}
	free(file->path);
	file->path = NULL;
	free(file->name);
	file->name = NULL;
}

int cli_file_fail(struct cli_file *file, enum pe_status st, int e)
{
	int is_stdout = file->is_stdout;
	char *name = file->name;
	file->name = NULL;
	cli_file_abort(file);
	int rc;
	if (st == PE_EIO && is_stdout)
		rc = cli_stdout_failed(e);
	else if (st == PE_EIO && e == EPIPE && file->direct)
		die_of_sigpipe(); /* a FIFO whose reader went away */
	else if (st == PE_EIO)
		rc = cli_error("writing '%s' failed: %s", name ? name : "?",
		               e ? strerror(e) : "input/output error");
	else
		rc = cli_error("writing '%s' failed: %s", name ? name : "?", pe_status_str(st));
	free(name);
	return rc;
}

int cli_file_commit(struct cli_file *file)
{
	errno = 0;
	int failed = fflush(file->f) != 0 || ferror(file->f);
	int e = errno;
	if (!file->is_stdout) {
		if (fclose(file->f) != 0 && !failed) {
			failed = 1;
			e = errno;
		}
	}
	file->f = NULL;
	if (failed)
		return cli_file_fail(file, PE_EIO, e);
	if (file->mem) {
		char *data = file->mem;
		file->mem = NULL;
		if (cli_memio_keep(file->name, data, file->mem_len) != 0) {
			cli_file_abort(file);
			return cli_error("out of memory");
		}
	}
	if (file->tmp) {
		if (rename(file->tmp, file->path) != 0) {
			int rc = cli_error("cannot write '%s': %s", file->name, strerror(errno));
			cli_file_abort(file);
			return rc;
		}
		temps_remove(file->tmp);
		free(file->tmp);
		file->tmp = NULL;
	}
	cli_file_abort(file);
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
	if (st != PE_OK)
		return cli_file_fail(&file, st, errno);
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
