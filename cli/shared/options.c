#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <posenc/colormap.h>
#include <posenc/read.h>

#include "cli.h"
#include "shared/costs.h"
#include "shared/model_spec.h"
#include "shared/options.h"
#include "shared/output.h"

/*
 * The common options' help, a line (or a few) per option, each under the
 * group that takes it; 0: every command. The -o line is the command's own.
 */
static const struct {
	unsigned group;
	const char *opt; /* the option's name as a line of a command's own help starts */
	const char *text;
} common_help[] = {
        {CLI_TAKES_SCHEME, "-s",
         "  -s, --scheme SPEC      scheme spec, e.g. sinusoidal:base=10 (see 'posenc help "
         "schemes'),\n"
         "                         or a model: hf:config.json, gguf:FILE, model:NAME\n"},
        {CLI_TAKES_LAYER, "--layer",
         "      --layer L          a model's layer group (local, global, ...) or layer index\n"},
        {CLI_TAKES_BASE, "--base",
         "      --base B           the sinusoidal or rope scheme's base (as base= in its "
         "spec)\n"},
        {CLI_TAKES_BASES, "--base",
         "      --base LIST        repeat the scheme once per base, e.g. 10000,10\n"},
        {CLI_TAKES_N, "-n", "  -n, --positions N      number of positions\n"},
        {CLI_TAKES_START, "--start", "      --start P          first position [default: 0]\n"},
        {CLI_TAKES_POSITION_IDS, "--position-ids",
         "      --position-ids FILE  M-RoPE (t,h,w) position ids per token: CSV t,h,w or\n"
         "                         NPY (n, 3) or (3, n); mrope specs only\n"},
        {CLI_TAKES_DIM, "-d", "  -d, --dim D            encoding width\n"},
        {0, "-o", NULL}, /* the command's output line */
        {CLI_TAKES_DTYPE, "--dtype", "      --dtype f64|f32    NPY element type [default: f64]\n"},
        {CLI_TAKES_COLOUR, "--cmap",
         "      --cmap NAME        colormap (viridis, magma, inferno, plasma, cividis, RdBu_r, "
         "gray,\n"
         "                         twilight (cyclic); NAME_r reverses)\n"},
        {CLI_TAKES_COLOUR, "--vmin",
         "      --vmin X, --vmax X colour scale limits [default: from the data]\n"},
        {CLI_TAKES_FIGURE, "--title", "      --title TEXT       figure title\n"},
        {CLI_TAKES_FIGURE_SIZE, "--width",
         "      --width W, --height H  figure size: a number with in, cm, mm, pt or px\n"
         "                         (a bare number is px; px are 1/DPI in, also in SVG and "
         "PDF)\n"},
        {CLI_TAKES_FIGURE_SIZE, "--size",
         "      --size WxH         both at once, e.g. 3.5inx2.5in or 1200x800\n"},
        {CLI_TAKES_FIGURE, "--dpi",
         "      --dpi N            PNG pixels per inch [default: 100]\n"},
        {CLI_TAKES_FIGURE, "--font-size",
         "      --font-size PT     axis label size in points; ticks 0.9x, titles 1.1x\n"
         "                         [default: 10, 9 for grids of panels]\n"},
        {CLI_TAKES_FIGURE, "--style",
         "      --style NAME       paper (3.5 in wide, 7 in for grids; 9 pt; 300 dpi) or\n"
         "                         slides (10 in wide; 14 pt; 150 dpi)\n"},
        {CLI_TAKES_RAW, "--raw", "      --raw              bare heatmap PNG, one pixel per cell\n"},
        {CLI_TAKES_MAX_MEMORY, "--max-memory",
         "      --max-memory SIZE  refuse allocations above SIZE (e.g. 2G) [default: half of "
         "RAM]\n"},
        {CLI_TAKES_MAX_TIME, "--max-time",
         "      --max-time T       refuse work estimated to take longer than T seconds (or\n"
         "                         30s, 10m, 2h) [default: 30s]\n"},
        {0, "-q", "  -q, --quiet            say nothing on stderr but errors\n"},
        {0, "-h", "  -h, --help             show this help\n"},
};

/*
 * What the process itself needs besides the budget: code, libraries, stacks,
 * fonts. (The budget is not set as RLIMIT_DATA: OpenBLAS's threads retry a
 * failed allocation of their buffers for ever.)
 */
#define BUDGET_SLACK ((uint64_t)64 << 20)

static uint64_t physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (pages > 0 && page > 0)
		return (uint64_t)pages * (uint64_t)page;
	return 0;
}

/*
 * The part of a process limit left for the budget: RLIMIT_DATA (ulimit -d)
 * less the slack, RLIMIT_AS (ulimit -v) less what libraries, stacks and
 * malloc's reserved arenas take of the address space.
 */
static uint64_t limit_budget(int resource, uint64_t overhead)
{
	struct rlimit rl;
	if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	uint64_t lim = (uint64_t)rl.rlim_cur;
	return lim > 2 * overhead ? lim - overhead : lim / 2;
}

/* The defaults (max_memory: half the machine's memory, within ulimit -v and -d). */
static void cli_common_init(struct cli_common *o)
{
	memset(o, 0, sizeof(*o));
	o->vmin = NAN;
	o->vmax = NAN;
	o->dtype = PE_DTYPE_F64;
	o->max_time = CLI_DEFAULT_MAX_TIME;
	o->max_memory = cli_default_budget();
	cli_budget = o->max_memory;
}

uint64_t cli_default_budget(void)
{
	uint64_t ram = physical_memory();
	uint64_t budget = ram ? ram / 2 : (uint64_t)4 << 30;
	/* Under ulimit -v or -d the default fits the limit: a refusal, not ENOMEM. */
	uint64_t as = limit_budget(RLIMIT_AS, (uint64_t)384 << 20);
	uint64_t data = limit_budget(RLIMIT_DATA, BUDGET_SLACK);
	if (as < budget)
		budget = as;
	if (data < budget)
		budget = data;
	return budget;
}

uint64_t cli_budget;
uint64_t cli_memory_baseline;

uint64_t cli_memory_in_use(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	struct mallinfo2 mi = mallinfo2();
	uint64_t held = (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
	return held > cli_memory_baseline ? held - cli_memory_baseline : 0;
#else
	return 0;
#endif
}

/*
 * The exact value of a decimal text DIGITS[.DIGITS][(e|E)[+-]DIGITS] if it
 * is a whole number that fits in 64 bits. Done on the digits, not through
 * strtod: 1.0000000000000001 and 4503599627370497.5 round to whole doubles
 * but are not whole numbers, and a double beyond 2^64 has no integer value.
 * @return 0 (whole, *out set), -1 (not a whole number), -2 (too large).
 */
static int parse_whole(const char *arg, uint64_t *out)
{
	const char *c = arg;
	const char *int_digits = c;
	while (*c >= '0' && *c <= '9')
		c++;
	size_t nint = (size_t)(c - int_digits);
	const char *frac_digits = c;
	size_t nfrac = 0;
	if (*c == '.') {
		frac_digits = ++c;
		while (*c >= '0' && *c <= '9')
			c++;
		nfrac = (size_t)(c - frac_digits);
	}
	if (nint + nfrac == 0)
		return -1;
	long long exp = 0;
	if (*c == 'e' || *c == 'E') {
		c++;
		int neg = 0;
		if (*c == '+' || *c == '-')
			neg = *c++ == '-';
		if (!(*c >= '0' && *c <= '9'))
			return -1;
		while (*c >= '0' && *c <= '9') {
			if (exp < 100000)
				exp = exp * 10 + (*c - '0');
			c++;
		}
		if (neg)
			exp = -exp;
	}
	if (*c)
		return -1;
	/* The digits d_1..d_k (integer then fraction part) times 10^(exp - nfrac). */
	long long shift = exp - (long long)nfrac;
	size_t ndig = nint + nfrac;
	uint64_t v = 0;
	int big = 0;
	for (size_t i = 0; i < ndig; i++) {
		int dig = i < nint ? int_digits[i] - '0' : frac_digits[i - nint] - '0';
		/* Digits that fall after the decimal point once shifted must be zero. */
		if (shift < 0 && (long long)(ndig - i) <= -shift) {
			if (dig != 0)
				return -1;
			continue;
		}
		if (big) {
			continue;
		}
		if (v > (UINT64_MAX - (uint64_t)dig) / 10)
			big = 1;
		else
			v = v * 10 + (uint64_t)dig;
	}
	for (long long i = 0; i < shift && !big && v; i++) {
		if (v > UINT64_MAX / 10)
			big = 1;
		else
			v *= 10;
	}
	if (big)
		return -2;
	*out = v;
	return 0;
}

int cli_parse_count(const char *name, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	int rc = parse_whole(arg, &v);
	uint64_t neg = 1;
	int neg_rc = rc == -1 && arg[0] == '-' ? parse_whole(arg + 1, &neg) : -1;
	/* "-0" is 0, which --start takes: not "-0 is too small (at least 0)" */
	if (neg_rc == 0 && neg == 0)
		rc = 0;
	else if (neg_rc != -1)
		return cli_usage_error("option '%s': %s is too small (at least %llu)", name, arg,
		                       (unsigned long long)min);
	if (rc == -1)
		return cli_usage_error("option '%s': '%s' is not a whole number", name, arg);
	if (rc == -2 || v > max)
		return cli_usage_error("option '%s': %s is too large (at most %llu)", name, arg,
		                       (unsigned long long)max);
	if (v < min)
		return cli_usage_error("option '%s': %s is too small (at least %llu)", name, arg,
		                       (unsigned long long)min);
	*out = v;
	return 0;
}

int cli_parse_double(const char *name, const char *arg, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (!*arg || *end || end == arg)
		return cli_usage_error("option '%s': '%s' is not a number", name, arg);
	if (!isfinite(v))
		return cli_usage_error("option '%s': '%s' is not finite", name, arg);
	*out = v;
	return 0;
}

int cli_parse_positions(const char *name, const char *arg, uint64_t **out, size_t *count)
{
	size_t n = 1;
	for (const char *c = arg; *c; c++)
		n += *c == ',';
	uint64_t *v = malloc(n * sizeof(*v));
	char *copy = strdup(arg);
	if (!v || !copy) {
		free(v);
		free(copy);
		return cli_error("out of memory");
	}
	size_t i = 0;
	char *save = NULL;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int rc = cli_parse_count(name, tok, 0, (uint64_t)PE_POSITION_MAX, &v[i]);
		if (rc) {
			free(v);
			free(copy);
			return rc;
		}
		i++;
	}
	free(copy);
	if (i != n || i == 0) {
		free(v);
		return cli_usage_error("option '%s': '%s' is not a list like 0,64,128", name, arg);
	}
	*out = v;
	*count = n;
	return 0;
}

int cli_parse_duration(const char *arg, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (end == arg || errno || !(v > 0) || !isfinite(v) || *arg == '-' || *arg == '+' ||
	    isspace((unsigned char)*arg))
		return -1;
	if (strcmp(end, "h") == 0)
		v *= 3600;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		v *= 60;
	else if (*end && strcmp(end, "s") != 0)
		return -1;
	if (!isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static int parse_bytes(const char *arg, uint64_t *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (end == arg || !isfinite(v) || v <= 0)
		return -1;
	double mult = 1;
	switch (*end) {
	case 'k':
	case 'K':
		mult = 1024.0;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1048576.0;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1073741824.0;
		end++;
		break;
	case 't':
	case 'T':
		mult = 1099511627776.0;
		end++;
		break;
	default:
		break;
	}
	if (*end == 'i' && end[-1] != *arg)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v * mult > 1.8e19)
		return -1;
	*out = (uint64_t)(v * mult);
	return 0;
}

static int parse_bases(struct cli_common *o, const char *arg)
{
	const char *c = arg;
	for (;;) {
		size_t len = strcspn(c, ",");
		char tok[64];
		if (len == 0 || len >= sizeof(tok))
			return cli_usage_error("option '--base': '%s' is not a list like 10000,10",
			                       arg);
		if (o->nbases == sizeof(o->bases) / sizeof(o->bases[0]))
			return cli_usage_error("option '--base': more than 64 bases");
		memcpy(tok, c, len);
		tok[len] = '\0';
		double b = 0.0;
		int rc = cli_parse_double("--base", tok, &b);
		if (rc)
			return rc;
		if (b <= 1.0)
			return cli_usage_error("option '--base': %s must be > 1", tok);
		/* Keep the user's text: it becomes part of each label. */
		o->base_texts[o->nbases] = c;
		o->bases[o->nbases++] = b;
		if (!c[len])
			return 0;
		c += len + 1;
	}
}

/*
 * A model's head width becomes the default -d of the schemes that are not
 * models (each model keeps its own, cli_scheme_width()); the first model's
 * training context is that of a command that takes one scheme. Read once
 * every option is parsed, so -d may come anywhere on the command line.
 */
static int model_width(struct cli_common *o, const char *spec)
{
	struct pe_model *m = NULL;
	const char *overrides;
	struct cli_common quiet = *o;
	quiet.quiet = 1; /* its warnings are said once, when the schemes are built */
	int rc = cli_model_load(&quiet, spec, &m, &overrides);
	if (rc)
		return rc;
	/* Biases (ALiBi, T5) have no width; RoPE has its head's, a table (learned, or
	 * Whisper's and DistilBERT's sinusoids) its columns. */
	int rope = 0;
	for (size_t i = 0; i < m->n_groups && !rope;
	     i++) /* a hybrid's NoPE layers may come first */
		rope = cli_spec_scheme_is(m->groups[i].spec, "rope");
	size_t hd = rope && !m->learned ? m->head_dim : m->table_cols;
	if (!o->model_train)
		o->model_train = m->train_context;
	if (!hd)
		return 0;
	if (!o->model_d)
		o->model_d = hd;
	if (!o->d_given)
		o->d = o->model_d;
	return 0;
}

/*
 * A length: a positive number and a unit, in, cm, mm, pt or px (none: px).
 * Points and pixels are kept apart because pixels depend on --dpi, which may
 * come later on the command line.
 */
static int parse_length(const char *name, const char *arg, size_t len, struct cli_length *out)
{
	static const struct {
		const char *unit;
		double pt; /* points per unit; 0: pixels */
	} units[] = {{"in", 72}, {"cm", 72 / 2.54}, {"mm", 72 / 25.4},
	             {"pt", 1},  {"px", 0},         {"", 0}};
	char text[64];
	if (len == 0 || len >= sizeof(text))
		goto bad;
	memcpy(text, arg, len);
	text[len] = '\0';
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || !isfinite(v) || ((*text < '0' || *text > '9') && *text != '.'))
		goto bad;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) != 0)
			continue;
		struct cli_length l = {units[i].pt ? v * units[i].pt : v, units[i].pt == 0};
		/* cairo's surfaces: 16 .. 32767 pixels or points a side (checked again in px). */
		if (!(l.value >= 16 && l.value <= 32767))
			return cli_usage_error("option '%s': %.*s is outside 16..32767 %s", name,
			                       (int)len, arg, l.px ? "pixels" : "points");
		*out = l;
		return 0;
	}
bad:
	return cli_usage_error("option '%s': '%.*s' is not a length like 640, 640px, 3.5in, 9cm, "
	                       "80mm or 252pt",
	                       name, (int)len, arg);
}

static int parse_size(struct cli_common *o, const char *arg)
{
	/* The separator is the x after a digit or a unit: "3.5inx2in", "640x480". */
	const char *x = NULL;
	for (const char *c = arg + 1; *c; c++)
		if ((*c == 'x' || *c == 'X') && c[-1] != 'p' && c[1] != 0 &&
		    ((c[1] >= '0' && c[1] <= '9') || c[1] == '.'))
			x = c;
	if (!x)
		return cli_usage_error("option '--size': '%s' is not a size like 640x480 or "
		                       "3.5inx2.5in",
		                       arg);
	int rc = parse_length("--size", arg, (size_t)(x - arg), &o->width);
	if (!rc)
		rc = parse_length("--size", x + 1, strlen(x + 1), &o->height);
	return rc;
}

static int common_option(struct cli_common *o, int opt, const char *arg, char **argv)
{
	uint64_t v;
	int rc;
	switch (opt) {
	case 'h':
		o->help = 1;
		return 0;
	case 'q':
		o->quiet = 1;
		return 0;
	case 's':
		if (o->nspecs == sizeof(o->specs) / sizeof(o->specs[0]))
			return cli_usage_error("option '--scheme': more than 64 schemes");
		o->specs[o->nspecs++] = arg;
		return 0;
	case 'n':
		rc = cli_parse_count("-n", arg, 1, (uint64_t)PE_POSITION_MAX, &v);
		if (!rc)
			o->n = (size_t)v;
		return rc;
	case 'd':
		rc = cli_parse_count("-d", arg, 1, (uint64_t)1 << 24, &v);
		if (!rc) {
			o->d = (size_t)v;
			o->d_given = 1;
		}
		return rc;
	case 'o':
		if (!*arg)
			return cli_usage_error("option '-o': the file name is empty");
		o->output = arg;
		return 0;
	case CLI_OPT_BASE:
		return parse_bases(o, arg);
	case CLI_OPT_START:
		return cli_parse_count("--start", arg, 0, (uint64_t)PE_POSITION_MAX, &o->start);
	case CLI_OPT_DTYPE:
		if (strcmp(arg, "f64") == 0 || strcmp(arg, "float64") == 0)
			o->dtype = PE_DTYPE_F64;
		else if (strcmp(arg, "f32") == 0 || strcmp(arg, "float32") == 0)
			o->dtype = PE_DTYPE_F32;
		else
			return cli_usage_error("option '--dtype': '%s' is not f64 or f32", arg);
		return 0;
	case CLI_OPT_CMAP:
		/* Checked whatever the output: a typo is an error even for a CSV
		 * (cli_figure_check_options() words it the same way). */
		o->cmap = arg;
		if (!pe_colormap_find(arg)) {
			char names[256] = "";
			for (const char *const *nm = pe_colormap_names(); *nm; nm++) {
				size_t len = strlen(names);
				snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "",
				         *nm);
			}
			return cli_usage_error("option '--cmap': unknown colormap '%s' (known: %s)",
			                       arg, names);
		}
		return 0;
	case CLI_OPT_VMIN:
		return cli_parse_double("--vmin", arg, &o->vmin);
	case CLI_OPT_VMAX:
		return cli_parse_double("--vmax", arg, &o->vmax);
	case CLI_OPT_TITLE:
		if (!cli_utf8_valid(arg))
			return cli_usage_error("option '--title': the text is not valid UTF-8");
		o->title = arg;
		return 0;
	case CLI_OPT_WIDTH:
		return parse_length("--width", arg, strlen(arg), &o->width);
	case CLI_OPT_HEIGHT:
		return parse_length("--height", arg, strlen(arg), &o->height);
	case CLI_OPT_SIZE:
		return parse_size(o, arg);
	case CLI_OPT_DPI:
		rc = cli_parse_double("--dpi", arg, &o->dpi);
		if (!rc && !(o->dpi >= 10 && o->dpi <= 2400))
			rc = cli_usage_error("option '--dpi': %s is outside 10..2400", arg);
		return rc;
	case CLI_OPT_FONT_SIZE:
		rc = cli_parse_double("--font-size", arg, &o->font_size);
		if (!rc && !(o->font_size >= 2 && o->font_size <= 200))
			rc = cli_usage_error("option '--font-size': %s is outside 2..200 (points)",
			                     arg);
		return rc;
	case CLI_OPT_STYLE:
		if (strcmp(arg, "paper") == 0)
			o->style = CLI_STYLE_PAPER;
		else if (strcmp(arg, "slides") == 0)
			o->style = CLI_STYLE_SLIDES;
		else if (strcmp(arg, "default") == 0)
			o->style = CLI_STYLE_DEFAULT;
		else
			return cli_usage_error("option '--style': '%s' is not paper, slides or "
			                       "default",
			                       arg);
		return 0;
	case CLI_OPT_RAW:
		o->raw = 1;
		return 0;
	case CLI_OPT_LAYER:
		if (!*arg)
			return cli_usage_error("option '--layer': the value is empty");
		o->layer = arg;
		return 0;
	case CLI_OPT_POSITION_IDS:
		if (!*arg)
			return cli_usage_error("option '--position-ids': the file name is empty");
		o->position_ids = arg;
		return 0;
	case CLI_OPT_MAX_MEMORY:
		if (parse_bytes(arg, &o->max_memory) != 0 || o->max_memory == 0)
			return cli_usage_error("option '--max-memory': '%s' is not a size like "
			                       "512M or 4G",
			                       arg);
		cli_budget = o->max_memory;
		return 0;
	case CLI_OPT_MAX_TIME:
		if (cli_parse_duration(arg, &o->max_time) != 0)
			return cli_usage_error("option '--max-time': '%s' is not a duration like "
			                       "90, 90s, 10m or 2h",
			                       arg);
		return 0;
	case ':':
		if (optopt && optopt < 256)
			return cli_usage_error("option '-%c' needs a value", optopt);
		return cli_usage_error("option '%s' needs a value", argv[optind - 1]);
	case '?':
		if (optopt && optopt < 256)
			return cli_usage_error("unknown option '-%c'", optopt);
		return cli_usage_error("unknown option '%s'", argv[optind - 1]);
	default:
		return cli_error("internal: option code %d has no parser", opt);
	}
}

/* The leading ':' makes getopt report a missing argument as ':'. */
#define COMMON_SHORT ":hqs:n:d:o:"

static const struct option common_long[] = {
        {"help", no_argument, NULL, 'h'},
        {"quiet", no_argument, NULL, 'q'},
        {"scheme", required_argument, NULL, 's'},
        {"positions", required_argument, NULL, 'n'},
        {"dim", required_argument, NULL, 'd'},
        {"output", required_argument, NULL, 'o'},
        {"base", required_argument, NULL, CLI_OPT_BASE},
        {"start", required_argument, NULL, CLI_OPT_START},
        {"dtype", required_argument, NULL, CLI_OPT_DTYPE},
        {"cmap", required_argument, NULL, CLI_OPT_CMAP},
        {"vmin", required_argument, NULL, CLI_OPT_VMIN},
        {"vmax", required_argument, NULL, CLI_OPT_VMAX},
        {"title", required_argument, NULL, CLI_OPT_TITLE},
        {"width", required_argument, NULL, CLI_OPT_WIDTH},
        {"height", required_argument, NULL, CLI_OPT_HEIGHT},
        {"raw", no_argument, NULL, CLI_OPT_RAW},
        {"size", required_argument, NULL, CLI_OPT_SIZE},
        {"dpi", required_argument, NULL, CLI_OPT_DPI},
        {"font-size", required_argument, NULL, CLI_OPT_FONT_SIZE},
        {"style", required_argument, NULL, CLI_OPT_STYLE},
        {"max-memory", required_argument, NULL, CLI_OPT_MAX_MEMORY},
        {"max-time", required_argument, NULL, CLI_OPT_MAX_TIME},
        {"layer", required_argument, NULL, CLI_OPT_LAYER},
        {"position-ids", required_argument, NULL, CLI_OPT_POSITION_IDS},
};
#define NCOMMON (sizeof(common_long) / sizeof(common_long[0]))
#define MAX_OWN 16

/* The group of each common option that not every command takes, and its name in messages. */
static const struct {
	int opt;
	unsigned group;
	const char *name;
} option_groups[] = {
        {'s', CLI_TAKES_SCHEME, "-s"},
        {'n', CLI_TAKES_N, "-n"},
        {'d', CLI_TAKES_DIM, "-d"},
        {CLI_OPT_BASE, CLI_TAKES_BASE | CLI_TAKES_BASES, "--base"},
        {CLI_OPT_START, CLI_TAKES_START, "--start"},
        {CLI_OPT_DTYPE, CLI_TAKES_DTYPE, "--dtype"},
        {CLI_OPT_CMAP, CLI_TAKES_COLOUR, "--cmap"},
        {CLI_OPT_VMIN, CLI_TAKES_COLOUR, "--vmin"},
        {CLI_OPT_VMAX, CLI_TAKES_COLOUR, "--vmax"},
        {CLI_OPT_TITLE, CLI_TAKES_FIGURE, "--title"},
        {CLI_OPT_WIDTH, CLI_TAKES_FIGURE_SIZE, "--width"},
        {CLI_OPT_HEIGHT, CLI_TAKES_FIGURE_SIZE, "--height"},
        {CLI_OPT_SIZE, CLI_TAKES_FIGURE_SIZE, "--size"},
        {CLI_OPT_DPI, CLI_TAKES_FIGURE, "--dpi"},
        {CLI_OPT_FONT_SIZE, CLI_TAKES_FIGURE, "--font-size"},
        {CLI_OPT_STYLE, CLI_TAKES_FIGURE, "--style"},
        {CLI_OPT_RAW, CLI_TAKES_RAW, "--raw"},
        {CLI_OPT_MAX_MEMORY, CLI_TAKES_MAX_MEMORY, "--max-memory"},
        {CLI_OPT_MAX_TIME, CLI_TAKES_MAX_TIME, "--max-time"},
        {CLI_OPT_LAYER, CLI_TAKES_LAYER, "--layer"},
        {CLI_OPT_POSITION_IDS, CLI_TAKES_POSITION_IDS, "--position-ids"},
};

/* 0, or the usage error for common option @opt when @cmd does not take its group. */
static int check_applies(const struct cli_command_options *cmd, int opt)
{
	for (size_t i = 0; i < sizeof(option_groups) / sizeof(option_groups[0]); i++) {
		if (option_groups[i].opt != opt)
			continue;
		unsigned group = option_groups[i].group;
		if (cmd->takes & group)
			return 0;
		const char *why = cmd->writes;
		for (const struct cli_refusal *r = cmd->why; r && r->groups; r++)
			if (r->groups & group) {
				why = r->why;
				break;
			}
		return cli_usage_error("%s: option '%s' does not apply (%s)",
		                       cli_command_name ? cli_command_name : "posenc",
		                       option_groups[i].name, why ? why : "not for this command");
	}
	return 0;
}

/*
 * Whether the Options section of @head (the help before its "%s") has a line
 * of its own for option @opt: that line is kept and the common one left out.
 */
static int documents_itself(const char *head, size_t len, const char *opt)
{
	const char *end = head + len, *c = head;
	for (const char *p = head; p + 9 <= end; p++)
		if (memcmp(p, "Options:\n", 9) == 0)
			c = p + 9;
	size_t olen = strlen(opt);
	while (c < end) {
		const char *eol = memchr(c, '\n', (size_t)(end - c));
		if (!eol)
			eol = end;
		const char *t = c;
		while (t < eol && *t == ' ')
			t++;
		if (t > c && (size_t)(eol - t) > olen && memcmp(t, opt, olen) == 0 &&
		    (t[olen] == ' ' || t[olen] == ','))
			return 1;
		c = eol + 1;
	}
	return 0;
}

static void print_help(const struct cli_command_options *cmd)
{
	const char *help = cmd->help;
	const char *at = strstr(help, "%s");
	if (!at) {
		fputs(help, stdout);
		return;
	}
	size_t head = (size_t)(at - help);
	fwrite(help, 1, head, stdout);
	for (size_t i = 0; i < sizeof(common_help) / sizeof(common_help[0]); i++) {
		if (common_help[i].group && !(cmd->takes & common_help[i].group))
			continue;
		if (documents_itself(help, head, common_help[i].opt))
			continue;
		if (common_help[i].text) {
			fputs(common_help[i].text, stdout);
			continue;
		}
		if (!cmd->output)
			continue;
		/* The command's formats, continued lines under the description column. */
		fputs("  -o, --output FILE      ", stdout);
		for (const char *c = cmd->output; *c; c++) {
			fputc(*c, stdout);
			if (*c == '\n' && c[1])
				fputs("                         ", stdout);
		}
		if (cmd->output[strlen(cmd->output) - 1] != '\n')
			fputc('\n', stdout);
	}
	fputs(at + 2, stdout);
}

int cli_parse_args(int argc, char **argv, const struct cli_command_options *cmd,
                   const struct cli_own_options *own, struct cli_common *o)
{
	cli_common_init(o);
	struct option all[NCOMMON + MAX_OWN + 1];
	size_t n = 0;
	for (size_t i = 0; i < NCOMMON; i++)
		all[n++] = common_long[i];
	for (size_t i = 0; own && own->opts && own->opts[i].name; i++) {
		if (i == MAX_OWN)
			return cli_error("internal: more than %d options of its own", MAX_OWN);
		all[n++] = own->opts[i];
	}
	memset(&all[n], 0, sizeof(all[n]));
	int opt;
	while ((opt = getopt_long(argc, argv, COMMON_SHORT, all, NULL)) != -1) {
		int rc = opt >= CLI_OPT_COMMAND && own && own->parse
		                 ? own->parse(own->ctx, opt, optarg)
		                 : check_applies(cmd, opt);
		if (!rc && !(opt >= CLI_OPT_COMMAND && own && own->parse))
			rc = common_option(o, opt, optarg, argv);
		if (rc)
			return rc;
	}
	if (o->help) {
		print_help(cmd);
		return CLI_DONE;
	}
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	/* Models are read once every option is known (--max-memory, -d, -q). */
	for (size_t i = 0; i < o->nspecs; i++) {
		int rc = cli_is_model_spec(o->specs[i]) ? model_width(o, o->specs[i]) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

void cli_schemes_free(struct pe_scheme **schemes, size_t count)
{
	if (!schemes)
		return;
	for (size_t i = 0; i < count; i++)
		pe_scheme_destroy(schemes[i]);
	free(schemes);
}

static int parse_one(const char *spec, struct pe_scheme **out)
{
	char *err = NULL;
	enum pe_status st = pe_scheme_parse(spec, out, &err);
	if (st == PE_OK)
		return 0;
	int rc;
	if (st == PE_ENOMEM)
		rc = cli_error("scheme '%s': out of memory", spec);
	else if (st == PE_EIO)
		rc = cli_error("scheme '%s': %s", spec, err ? err : pe_status_str(st));
	else
		rc = cli_usage_error("scheme '%s': %s", spec, err ? err : pe_status_str(st));
	free(err);
	return rc;
}

static int takes_base(const struct pe_scheme *s)
{
	return pe_scheme_takes_key(s, "base");
}

static char *pe_strdup_cli(const char *s)
{
	size_t len = strlen(s) + 1;
	char *c = malloc(len);
	if (c)
		memcpy(c, s, len);
	return c;
}

static int parse_with_base(const char *spec, int from_model, const char *base_text,
                           struct pe_scheme **out)
{
	size_t blen = strcspn(base_text, ",");
	size_t len = strlen(spec) + 2 * blen + 24;
	char *with = malloc(len);
	if (!with)
		return cli_error("out of memory");
	if (from_model) {
		/* A model's spec has its own base and label: replace both. */
		const char *label = strstr(spec, ",label=");
		char *ov = malloc(len + (label ? strlen(label) : 0));
		if (!ov) {
			free(with);
			return cli_error("out of memory");
		}
		snprintf(ov, len, "base=%.*s", (int)blen, base_text);
		if (label) {
			size_t ol = strlen(ov);
			sprintf(ov + ol, ",label=%.*s base=%.*s", (int)strcspn(label + 7, ","),
			        label + 7, (int)blen, base_text);
		}
		char *replaced = pe_spec_override(spec, ov);
		free(ov);
		free(with);
		if (!replaced)
			return cli_error("out of memory");
		int rc = parse_one(replaced, out);
		free(replaced);
		return rc;
	}
	snprintf(with, len, "%s%sbase=%.*s", spec, strchr(spec, ':') ? "," : ":", (int)blen,
	         base_text);
	int rc = parse_one(with, out);
	free(with);
	return rc;
}

/* Every -s, with model specs expanded to their groups' plain specs. */
static int expand_specs(const struct cli_common *o, const char *default_spec, size_t max,
                        char ***out, struct cli_model_info **from_model, size_t *count)
{
	size_t nspecs = o->nspecs ? o->nspecs : 1, n = 0, cap = nspecs;
	char **list = calloc(cap, sizeof(*list));
	struct cli_model_info *model = calloc(cap, sizeof(*model));
	int rc = list && model ? 0 : cli_error("out of memory");
	for (size_t i = 0; i < nspecs && !rc; i++) {
		const char *spec = o->nspecs ? o->specs[i] : default_spec;
		char **groups = NULL;
		struct cli_model_info *ginfo = NULL;
		size_t ng = 1;
		int is_model = cli_is_model_spec(spec);
		if (is_model)
			rc = cli_model_specs(o, spec, max, &groups, &ng, &ginfo);
		if (rc)
			break;
		if (n + ng > cap) {
			size_t ncap = n + ng + cap;
			char **gl = realloc(list, ncap * sizeof(*gl));
			struct cli_model_info *gm = gl ? realloc(model, ncap * sizeof(*gm)) : NULL;
			if (gl)
				list = gl;
			if (gm)
				model = gm;
			if (!gl || !gm) {
				for (size_t k = 0; is_model && k < ng; k++)
					free(groups[k]);
				free(groups);
				free(ginfo);
				rc = cli_error("out of memory");
				break;
			}
			cap = ncap;
		}
		for (size_t k = 0; k < ng; k++) {
			list[n] = is_model ? groups[k] : pe_strdup_cli(spec);
			if (is_model)
				model[n] = ginfo[k];
			else
				memset(&model[n], 0, sizeof(model[n]));
			if (!list[n])
				rc = cli_error("out of memory");
			n++;
		}
		free(groups);
		free(ginfo);
	}
	if (rc) {
		for (size_t i = 0; list && i < n; i++)
			free(list[i]);
		free(list);
		free(model);
		return rc;
	}
	*out = list;
	*from_model = model;
	*count = n;
	return 0;
}

/*
 * -d given for a model's scheme at another width changes the model: refused
 * when the spec holds per-pair numbers of its own width (LongRoPE's
 * factors), else drawn as asked with a warning that says what changes.
 */
static int check_forced_width(const struct cli_common *o, const struct pe_scheme *s,
                              const struct cli_model_info *info)
{
	if (!o->d_given || !info->model[0] || !info->head_dim || o->d == info->head_dim ||
	    !pe_scheme_has(s, PE_CAP_SCALING))
		return 0;
	size_t own_rot = (size_t)((double)info->head_dim * s->rotary) & ~(size_t)1;
	size_t new_rot = (size_t)((double)o->d * s->rotary) & ~(size_t)1;
	size_t nf = s->scaling.n_long_factor ? s->scaling.n_long_factor : s->scaling.n_short_factor;
	if (nf)
		return cli_usage_error("-d %zu would change %s: its %zu %s factors are for rotary "
		                       "width %zu (head width %zu), not %zu; leave -d out and each "
		                       "model is drawn at its own width",
		                       o->d, s->label, nf,
		                       s->scaling.type == PE_ROPE_SCALING_LONGROPE ? "LongRoPE"
		                                                                   : "frequency",
		                       own_rot, info->head_dim, new_rot);
	if (!o->quiet)
		fprintf(stderr,
		        "posenc: warning: -d %zu draws %s at head width %zu instead of its own %zu "
		        "(rotary width %zu instead of %zu: %zu pairs instead of %zu, other "
		        "frequencies); leave -d out for each model's own width\n",
		        o->d, s->label, o->d, info->head_dim, new_rot, own_rot, new_rot / 2,
		        own_rot / 2);
	return 0;
}

int cli_schemes(const struct cli_common *o, const char *default_spec, size_t max,
                struct pe_scheme ***out, size_t *count)
{
	return cli_schemes_models(o, default_spec, max, out, count, NULL);
}

int cli_schemes_models(const struct cli_common *o, const char *default_spec, size_t max,
                       struct pe_scheme ***out, size_t *count, struct cli_model_info **info)
{
	char **specs = NULL;
	struct cli_model_info *from_model = NULL;
	size_t nspecs = 0;
	*out = NULL;
	*count = 0;
	if (info)
		*info = NULL;
	int rc = expand_specs(o, default_spec, max, &specs, &from_model, &nspecs);
	if (rc)
		return rc;
	size_t nbases = o->nbases ? o->nbases : 1;
	/* Room for every spec crossed with every base; schemes without a base stay single. */
	struct pe_scheme **list = calloc(nspecs * nbases, sizeof(*list));
	struct cli_model_info *inf = calloc(nspecs * nbases, sizeof(*inf));
	if (!list || !inf)
		rc = cli_error("out of memory");
	size_t total = 0;
	int any_base = 0;
	for (size_t i = 0; i < nspecs && !rc; i++) {
		const char *spec = specs[i];
		struct pe_scheme *plain = NULL;
		int is_model = from_model[i].model[0] != 0;
		size_t first = total;
		rc = parse_one(spec, &plain);
		if (!rc && o->nbases && takes_base(plain)) {
			any_base = 1;
			pe_scheme_destroy(plain);
			for (size_t j = 0; j < nbases && !rc; j++)
				if (!(rc = parse_with_base(spec, is_model, o->base_texts[j],
				                           &list[total])))
					total++;
		} else if (!rc) {
			list[total++] = plain;
		}
		for (size_t k = first; k < total; k++)
			inf[k] = from_model[i];
		for (size_t k = first; k < total && !rc; k++)
			rc = check_forced_width(o, list[k], &inf[k]);
	}
	for (size_t i = 0; i < nspecs; i++)
		free(specs[i]);
	free(specs);
	free(from_model);
	if (!rc && info)
		*info = inf;
	else
		free(inf);
	if (rc) {
		if (info && *info) {
			free(*info);
			*info = NULL;
		}
		cli_schemes_free(list, total);
		return rc;
	}
	int any_model = 0;
	for (size_t i = 0; i < o->nspecs; i++)
		any_model |= cli_is_model_spec(o->specs[i]);
	if (o->layer && !any_model) {
		if (info) {
			free(*info);
			*info = NULL;
		}
		cli_schemes_free(list, total);
		return cli_usage_error(
		        "option '--layer' picks a layer of a model spec (hf:, gguf:, "
		        "model:), and no -s is one");
	}
	for (size_t i = 0; i < total; i++)
		if (list[i]->label && !cli_utf8_valid(list[i]->label)) {
			rc = cli_usage_error("scheme '%s': its label is not valid UTF-8",
			                     list[i]->canonical);
			if (info) {
				free(*info);
				*info = NULL;
			}
			cli_schemes_free(list, total);
			return rc;
		}
	if ((o->nbases && !any_base) || total > max) {
		if (info) {
			free(*info);
			*info = NULL;
		}
	}
	if (o->nbases && !any_base) {
		cli_schemes_free(list, total);
		return cli_usage_error(
		        "option '--base' applies to sinusoidal and rope schemes only");
	}
	if (total > max) {
		cli_schemes_free(list, total);
		if (max == 1)
			return cli_usage_error(
			        "%s takes one scheme, %zu given (use 'posenc compare' "
			        "for several)",
			        cli_command_name, total);
		return cli_usage_error("%s takes at most %zu schemes, %zu given", cli_command_name,
		                       max, total);
	}
	*out = list;
	*count = total;
	return 0;
}

const char *cli_format_bytes(double bytes, char *buf)
{
	static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	int u = 0;
	while (bytes >= 1024.0 && u < 6) {
		bytes /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, 32, "%.0f bytes", bytes);
	else
		snprintf(buf, 32, "%.1f %s", bytes, units[u]);
	return buf;
}

int cli_check_memory(const struct cli_common *o, double bytes, const char *what, const char *hint)
{
	/* What is allocated already counts: the budget holds for the whole run. */
	double held = (double)cli_memory_in_use();
	if (bytes + held <= (double)o->max_memory)
		return 0;
	char need[32], have[32], raise[48];
	cli_budget_advice(bytes + held, raise, sizeof(raise));
	if (held >= 1048576.0 && bytes <= (double)o->max_memory) {
		char in_use[32];
		return cli_error("%s needs %s more, with %s in use already over the memory "
		                 "budget of %s: %s%s",
		                 what, cli_format_bytes(bytes, need),
		                 cli_format_bytes(held, in_use),
		                 cli_format_bytes((double)o->max_memory, have), hint, raise);
	}
	return cli_error("%s needs %s, more than the memory budget of %s: %s%s", what,
	                 cli_format_bytes(bytes, need),
	                 cli_format_bytes((double)o->max_memory, have), hint, raise);
}

/* "45 s", "12 min", "19.2 h", "3.1 days": a duration to read at a glance. */
static void format_duration(double s, char *buf, size_t cap)
{
	if (s < 1) /* a budget under a second, and what exceeds it, as they are */
		snprintf(buf, cap, "%.2g s", s);
	else if (s < 90)
		snprintf(buf, cap, "%.0f s", ceil(s));
	else if (s < 5400)
		snprintf(buf, cap, "%.0f min", ceil(s / 60));
	else if (s < 172800)
		snprintf(buf, cap, "%.1f h", s / 3600);
	else if (s < 1e9)
		snprintf(buf, cap, "%.0f days", s / 86400);
	else
		snprintf(buf, cap, "%.2g years", s / (365.25 * 86400));
}

/*
 * Which output an option is for: one rule for every command (the man page's
 * COMMON OPTIONS: an option that does not apply is a usage error).
 */
int cli_options_apply_to(const struct cli_common *o, const char *path, enum cli_format format)
{
	int figure = format == CLI_FORMAT_PNG || format == CLI_FORMAT_SVG ||
	             format == CLI_FORMAT_PDF || format == CLI_FORMAT_HTML;
	if (o->dtype == PE_DTYPE_F32 && format != CLI_FORMAT_NPY)
		return cli_usage_error("option '--dtype' applies to .npy output, not '%s'", path);
	if (o->raw && format != CLI_FORMAT_PNG)
		return cli_usage_error("option '--raw' writes a PNG, not '%s'", path);
	if (figure)
		return 0;
	const char *given = o->dpi > 0                      ? "--dpi"
	                    : o->style != CLI_STYLE_DEFAULT ? "--style"
	                    : o->width.value > 0            ? "--width"
	                    : o->height.value > 0           ? "--height"
	                    : o->font_size > 0              ? "--font-size"
	                    : o->cmap                       ? "--cmap"
	                    : o->title                      ? "--title"
	                    : !isnan(o->vmin)               ? "--vmin"
	                    : !isnan(o->vmax)               ? "--vmax"
	                                                    : NULL;
	if (given)
		return cli_usage_error("option '%s' applies to figures (.png, .svg, .pdf), not to "
		                       "'%s'",
		                       given, path);
	return 0;
}

int cli_time_over(const struct cli_common *o, double seconds, char *over, size_t over_cap,
                  char *raise, size_t raise_cap)
{
	if (seconds <= o->max_time)
		return 0;
	char need[32], have[32];
	format_duration(seconds, need, sizeof(need));
	format_duration(o->max_time, have, sizeof(have));
	snprintf(over, over_cap, "about %s, more than the time budget of %s", need, have);
	/* A budget that lets it through, when waiting for it is conceivable (a week). */
	*raise = '\0';
	if (seconds < 7 * 86400.0) {
		double want = ceil(seconds * 1.5);
		if (want < 90)
			snprintf(raise, raise_cap, "--max-time %.0fs", want);
		else if (want < 5400)
			snprintf(raise, raise_cap, "--max-time %.0fm", ceil(want / 60));
		else
			snprintf(raise, raise_cap, "--max-time %.0fh", ceil(want / 3600));
	}
	return 1;
}

int cli_check_time(const struct cli_common *o, double seconds, const char *what, const char *hint)
{
	char over[CLI_TIME_OVER_CAP], raise[32];
	if (!cli_time_over(o, seconds, over, sizeof(over), raise, sizeof(raise)))
		return 0;
	/* the hint goes before the raise: what to do instead comes first */
	return cli_error("%s would take %s: %s%s%s%s", what, over, hint,
	                 *raise ? ", or raise the budget (" : "", raise, *raise ? ")" : "");
}

int cli_check_csv_read(const struct cli_common *o, const char *path, const char *hint)
{
	struct stat sb;
	unsigned char head[16];
	/* Only a regular file: opening a FIFO would wait for its writer and
	 * then take its data from the reader that follows. */
	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return 0; /* the reader says why, or streams it */
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	ssize_t got = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? read(fd, head, sizeof(head)) : 0;
	close(fd);
	if (got <= 0 || pe_file_format_detect(head, (size_t)got, path) != PE_FORMAT_CSV)
		return 0;
	char what[160], *shown = cli_escape(path);
	snprintf(what, sizeof(what), "reading the CSV file '%.100s' (%.0f MB)", shown ? shown : "?",
	         (double)sb.st_size / 1e6);
	free(shown);
	return cli_check_time(o, (double)sb.st_size * CLI_COST_CSV_READ_BYTE, what, hint);
}

void cli_budget_advice(double bytes, char *buf, size_t cap)
{
	/* Advice that works: a budget that covers the need, if the machine has it. */
	double ram = (double)physical_memory();
	double want = bytes + 64.0 * 1048576.0;
	if (ram > 0 && want > ram * 0.9) {
		buf[0] = '\0'; /* more than the machine has: raising the budget would not help */
		return;
	}
	if (want < 1073741824.0)
		snprintf(buf, cap, ", or raise the budget (--max-memory %.0fM)",
		         ceil(want / 1048576.0));
	else
		snprintf(buf, cap, ", or raise the budget (--max-memory %.0fG)",
		         ceil(want / 1073741824.0));
}
