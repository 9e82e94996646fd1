/*
 * The encodings of a config.json other than RoPE: ALiBi (BLOOM, MPT,
 * Falcon), T5's relative buckets, learned absolute tables (GPT-2, BERT,
 * RoBERTa, OPT, ...), fixed sinusoidal tables (Marian, M2M-100, CTRL) and
 * Whisper's pair of tables.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_hf.h"

static const char *json_str(const struct json *obj, const char *key, const char *dflt)
{
	const struct json *v = hf_present(obj, key);
	return v && v->type == JSON_STRING ? v->string : dflt;
}

/* One group "all" of every layer, @b's spec labelled with the model; frees @b's text. */
static enum pe_status add_all(struct hf *h, struct strbuf *b)
{
	strbuf_addf(b, ",label=%s", h->label);
	enum pe_status st = b->failed ? PE_ENOMEM : hf_add_group(h, "all", b->buf);
	free(b->buf);
	return st;
}

/*
 * An MPT run by llm-foundry's own code (auto_map) without ALiBi: RoPE when
 * attn_config.rope (rope_theta, the flash-attn rotary of rope_impl 'dail'
 * or transformers' of 'hf', both rotate_half, on d_model // n_heads), else
 * the learned table of learned_pos_emb (default true), else nothing.
 */
static enum pe_status mpt_foundry(struct hf *h, const struct json *ac)
{
	int rope = hf_bool(h, "attn_config.", ac, "rope", 0);
	int learned = hf_bool(h, "", h->cfg, "learned_pos_emb", 1);
	if (rope < 0 || learned < 0)
		return PE_EFORMAT;
	if (!rope && learned)
		return hf_read_learned(h);
	if (!rope)
		return hf_fail(
		        h, PE_EUNSUPPORTED,
		        "model_type 'mpt' (llm-foundry's code, auto_map): attn_config.alibi "
		        "and attn_config.rope are false and learned_pos_emb is false, so there "
		        "is no positional encoding to show");
	const char *impl = json_str(ac, "rope_impl", "dail");
	const char *type = NULL;
	if (strcmp(impl, "dail") == 0)
		type = json_str(hf_present(ac, "rope_dail_config"), "type", "original");
	else if (strcmp(impl, "hf") == 0)
		type = json_str(hf_present(ac, "rope_hf_config"), "type", "no_scaling");
	if (!type || (strcmp(type, "original") != 0 && strcmp(type, "no_scaling") != 0))
		return hf_fail(h, PE_EUNSUPPORTED,
		               "attn_config.rope_impl '%s' with type '%s': llm-foundry's xPos and "
		               "scaled rotary variants are not restated here (only 'dail' original "
		               "and 'hf' no_scaling)",
		               impl, type ? type : "?");
	double theta = 10000.0; /* llm-foundry's attn_config default */
	size_t heads = 0, hidden = 0, layers = 0;
	int rc;
	if (hf_number(h, "attn_config.", ac, "rope_theta", &theta) < 0 ||
	    (rc = hf_cfg_count(h, "hidden_size", &hidden, NULL)) < 0 ||
	    hf_cfg_count(h, "num_attention_heads", &heads, NULL) < 0 ||
	    hf_cfg_count(h, "num_hidden_layers", &layers, NULL) < 0)
		return PE_EFORMAT;
	if (!hidden || !heads || hidden / heads < 2 || (hidden / heads) % 2)
		return hf_fail(h, PE_EFORMAT,
		               "d_model, n_heads: no even head width d_model // n_heads to rotate");
	if (!(theta > 1.0))
		return hf_fail(h, PE_EFORMAT, "attn_config.rope_theta: %.17g must exceed 1", theta);
	h->m->head_dim = hidden / heads;
	h->m->n_layers = layers;
	double ctx = 0;
	if (hf_cfg_number(h, "max_position_embeddings", &ctx, NULL) < 0)
		return PE_EFORMAT;
	if (ctx >= 1)
		h->m->context = ctx;
	struct strbuf b = {0};
	strbuf_addf(&b, "rope:base=");
	hf_put_number(&b, theta);
	strbuf_addf(&b, ",layout=half");
	return add_all(h, &b);
}

/*
 * ALiBi. BLOOM (build_alibi_tensor) adds slope x key position: form
 * official, Press et al.'s slopes. MPT (build_mpt_alibi_tensor) has its
 * own slopes, 1 / 2^(k x alibi_bias_max / n2) over the next power of two n2
 * (odd ones first when heads is not a power of two): slopes=mpt. MptModel
 * builds the bias whatever attn_config.alibi says; llm-foundry's own code
 * (auto_map) reads alibi, rope and learned_pos_emb (mpt_foundry()).
 */
/*
 * Jais / BTLM's alibi_scaling: {"type": "linear", "factor": F} divides every
 * slope by F, {"type": "linear", "train_seq_len": L} by max(1, keys / L) as
 * the sequence grows (AlibiPositionEmbeddingLayer). The ALiBi scheme has no
 * slope divisor, so a factor is refused; the dynamic form leaves the slopes
 * alone up to L, which is what posenc shows, with a warning.
 */
static enum pe_status alibi_scaling(struct hf *h)
{
	const struct json *sc = hf_present(h->cfg, "alibi_scaling");
	if (!sc)
		return PE_OK;
	if (sc->type != JSON_OBJECT)
		return hf_fail(h, PE_EFORMAT, "alibi_scaling: is not an object");
	double v;
	int rc = hf_number(h, "alibi_scaling.", sc, "factor", &v);
	if (rc < 0)
		return PE_EFORMAT;
	if (rc && v != 1.0)
		return hf_fail(h, PE_EUNSUPPORTED,
		               "alibi_scaling.factor: %.17g divides every ALiBi slope (the model's "
		               "own AlibiPositionEmbeddingLayer), a scaling posenc's alibi scheme "
		               "does not have",
		               v);
	if ((rc = hf_number(h, "alibi_scaling.", sc, "train_seq_len", &v)) < 0)
		return PE_EFORMAT;
	if (rc)
		return hf_warn(h,
		               "alibi_scaling.train_seq_len: %.17g; beyond that many keys the "
		               "model divides the slopes by keys / train_seq_len at inference "
		               "time (its own dynamic scaling), which depends on the running "
		               "length; shown unscaled",
		               v);
	return PE_OK;
}

enum pe_status hf_read_alibi(struct hf *h)
{
	const struct json *cfg = h->cfg;
	size_t heads = 0, layers = 0;
	struct strbuf b = {0};
	int rc;
	if (h->arch->flags & HF_ALIBI_ATTN_CONFIG) {
		const struct json *ac = hf_present(cfg, "attn_config");
		const struct json *al = hf_present(ac, "alibi");
		if (ac && ac->type != JSON_OBJECT)
			return hf_fail(h, PE_EFORMAT, "attn_config: is not an object");
		if (al && al->type != JSON_BOOL)
			return hf_fail(h, PE_EFORMAT, "attn_config.alibi: is not true or false");
		/* MptAttentionConfig's alibi defaults to true, llm-foundry's (auto_map) to false */
		int remote = hf_present(h->root, "auto_map") != NULL;
		if (remote && !(al && al->boolean))
			return mpt_foundry(h, ac);
		if (al && !al->boolean) {
			enum pe_status wst = hf_warn(
			        h, "attn_config.alibi: false, but transformers' MptModel builds "
			           "its ALiBi bias whatever it says (build_mpt_alibi_tensor); "
			           "read as ALiBi");
			if (wst != PE_OK)
				return wst;
		}
		double max = 8.0; /* MptAttentionConfig's default */
		if (hf_number(h, "attn_config.", ac, "alibi_bias_max", &max) < 0)
			return PE_EFORMAT;
		if (!(max > 0.0 && max <= 1e6))
			return hf_fail(h, PE_EFORMAT,
			               "attn_config.alibi_bias_max: %.17g is not in (0, 1e6]", max);
		if ((rc = hf_cfg_count(h, "num_attention_heads", &heads, NULL)) <= 0)
			return rc < 0 ? PE_EFORMAT : hf_fail(h, PE_EFORMAT, "n_heads: missing");
		strbuf_addf(&b, "alibi:heads=%zu,form=paper,slopes=mpt", heads);
		if (max != 8.0)
			hf_put_key(&b, "bias-max", max);
	} else {
		if ((rc = hf_cfg_count(h, "num_attention_heads", &heads, NULL)) <= 0)
			return rc < 0 ? PE_EFORMAT : hf_fail(h, PE_EFORMAT, "n_head: missing");
		/* Cerebras' AlibiPositionEmbeddingLayer adds -slope |i - j| */
		int cerebras = (h->arch->flags & HF_PET_ALIBI) != 0;
		enum pe_status ast = cerebras ? alibi_scaling(h) : PE_OK;
		if (ast != PE_OK)
			return ast;
		strbuf_addf(&b, "alibi:heads=%zu,form=%s", heads, cerebras ? "paper" : "official");
	}
	if (heads > 65536) {
		free(b.buf);
		return hf_fail(h, PE_EFORMAT, "%zu heads: more than the 65536 posenc reads", heads);
	}
	if (hf_cfg_count(h, "num_hidden_layers", &layers, NULL) < 0) {
		free(b.buf);
		return PE_EFORMAT;
	}
	h->m->n_layers = layers;
	double ctx = 0;
	if ((rc = hf_cfg_number(h, "max_position_embeddings", &ctx, NULL)) < 0) {
		free(b.buf);
		return PE_EFORMAT;
	}
	if (rc > 0 && ctx > 0)
		h->m->context = ctx;
	return add_all(h, &b);
}

enum pe_status hf_read_t5(struct hf *h)
{
	const struct json *cfg = h->cfg;
	size_t buckets = 32, dist = 128, layers = 0;
	if (hf_count(h, "", cfg, "relative_attention_num_buckets", &buckets) < 0 ||
	    hf_count(h, "", cfg, "relative_attention_max_distance", &dist) < 0 ||
	    hf_cfg_count(h, "d_kv", &h->m->head_dim, NULL) < 0 ||
	    hf_cfg_count(h, "num_hidden_layers", &layers, NULL) < 0)
		return PE_EFORMAT;
	h->m->n_layers = layers;
	/* The encoder looks both ways, the decoder only back. */
	for (int dec = 0; dec < 2; dec++) {
		char *spec =
		        pe_asprintf("t5:buckets=%zu,max-distance=%zu,bidirectional=%d,"
		                    "label=%s %s",
		                    buckets, dist, !dec, h->label, dec ? "decoder" : "encoder");
		if (!spec)
			return PE_ENOMEM;
		enum pe_status st = hf_add_group(h, dec ? "decoder" : "encoder", spec);
		free(spec);
		if (st != PE_OK)
			return st;
	}
	return PE_OK;
}

/*
 * The shape of a table: rows from table_rows (the class's own key, else
 * max_position_embeddings and its aliases), columns from table_cols (else
 * the hidden size). *@rname gets the key the rows were read from.
 */
static enum pe_status table_shape(struct hf *h, size_t *rows, size_t *cols, const char **rname)
{
	const char *rk = hf_arch_key(h->arch, "table_rows");
	const char *ck = hf_arch_key(h->arch, "table_cols");
	*rname = rk ? rk : "max_position_embeddings";
	if (hf_cfg_count(h, *rname, rows, rname) < 0 ||
	    hf_cfg_count(h, ck ? ck : "hidden_size", cols, NULL) < 0)
		return PE_EFORMAT;
	if (!*rows || !*cols)
		return hf_fail(h, PE_EFORMAT, "%s, %s: the table shape is missing", *rname,
		               ck ? ck : "hidden_size");
	return PE_OK;
}

/*
 * Where position 0 reads the table: 2 rows on for OPT and BART (their
 * embeddings add 2), padding_idx + 1 for RoBERTa-like tables and fairseq's
 * sinusoids (make_positions), else 0.
 */
static enum pe_status first_row(struct hf *h, size_t rows, size_t *offset)
{
	double pad = 0;
	*offset = 0;
	if (h->arch->flags & HF_OFFSET2) {
		*offset = 2;
	} else if (h->arch->flags & HF_PAD_OFFSET) {
		int pc = hf_cfg_number(h, "pad_token_id", &pad, NULL);
		if (pc < 0)
			return PE_EFORMAT;
		if (pc && pad >= 0 && pad == floor(pad) && pad + 1 < (double)rows)
			*offset = (size_t)pad + 1;
	}
	return PE_OK;
}

/* An encoder-decoder whose other half has a table of its own length: LED's
 * decoder, Speech2Text's encoder (over audio frames). */
static enum pe_status other_rows(struct hf *h)
{
	static const char *const which[2] = {"decoder", "encoder"};
	for (int k = 0; k < 2; k++) {
		char pseudo[16], key[24];
		snprintf(pseudo, sizeof(pseudo), "%s_rows", which[k]);
		const char *rk = hf_arch_key(h->arch, pseudo);
		size_t rows = 0;
		int rc = rk ? hf_cfg_count(h, rk, &rows, NULL) : 0;
		if (rc < 0)
			return PE_EFORMAT;
		if (!rc)
			continue;
		snprintf(key, sizeof(key), "%s_positions", which[k]);
		enum pe_status st = hf_fact(
		        h, key, "the other half's table (of the same kind) has this many rows",
		        "%zu", rows);
		if (st != PE_OK)
			return st;
	}
	return PE_OK;
}

/*
 * A learned table: nn.Embedding(rows, cols). Rows: max_position_embeddings
 * (n_positions), 2 more for OPT and BART (their embeddings offset every
 * position by 2); RoBERTa-like tables count positions from padding_idx + 1.
 * Cols: the hidden size, or the class's own key (ALBERT's embedding_size).
 */
enum pe_status hf_read_learned(struct hf *h)
{
	const struct json *cfg = h->cfg;
	struct pe_model *m = h->m;
	size_t rows = 0, cols = 0, layers = 0;
	const char *rname = NULL;
	const struct json *pet = hf_present(cfg, "position_embedding_type");
	if (pet && pet->type != JSON_STRING)
		return hf_fail(h, PE_EFORMAT, "position_embedding_type: is not a string");
	if (pet && strcmp(pet->string, "rotary") == 0) {
		/* ESM-2, RoFormer-like configs: rotary on every layer, rotate_half; with
		 * flash-attn's keys (Jina's XLM-RoBERTa) rotary_emb_base is the base */
		int flash = hf_present(cfg, "rotary_emb_base") && !hf_present(cfg, "rope_theta");
		h->arch = flash ? hf_arch_flash() : hf_arch_generic(0);
		if (flash) {
			enum pe_status wst = hf_warn(
			        h,
			        "position_embedding_type: 'rotary' with rotary_emb_base: read as "
			        "flash-attn's rotary in the repository's own code "
			        "(rotary_emb_base, "
			        "rotary_emb_fraction, rotary_emb_interleaved), which may differ");
			if (wst != PE_OK)
				return wst;
		}
		return hf_read_rope(h);
	}
	if (pet && strcmp(pet->string, "alibi") == 0)
		return hf_fail(h, PE_EUNSUPPORTED,
		               "position_embedding_type: 'alibi' is JinaBERT's remote code (ALiBi "
		               "on |i - j| in both directions of an encoder), which posenc's alibi "
		               "scheme does not have");
	/* CodeShell's class default names its learned table learned_absolute */
	int own_name = (h->arch->flags & HF_PET_ROPE) && pet &&
	               strcmp(pet->string, "learned_absolute") == 0;
	if (pet && strcmp(pet->string, "absolute") != 0 && !own_name)
		return hf_fail(h, PE_EUNSUPPORTED,
		               "position_embedding_type: '%s' is a relative scheme (Shaw et al. / "
		               "Huang et al. relative_key embeddings) that posenc does not have",
		               pet->string);
	enum pe_status st = table_shape(h, &rows, &cols, &rname);
	if (st != PE_OK)
		return st;
	/* a flag that fills the same table with fixed sinusoids: DistilBERT's
	 * sinusoidal_pos_embds, XLM's sinusoidal_embeddings (create_sinusoidal_embeddings:
	 * sin at even, cos at odd columns, 10000^(2i/d)) */
	int sinusoidal = h->arch->sin_key ? hf_bool(h, "", cfg, h->arch->sin_key, 0) : 0;
	if (sinusoidal < 0)
		return PE_EFORMAT;
	if (hf_cfg_count(h, "num_hidden_layers", &layers, NULL) < 0)
		return PE_EFORMAT;
	if (h->arch->flags & HF_OFFSET2)
		rows += 2;
	size_t offset = 0;
	if ((st = first_row(h, rows, &offset)) != PE_OK)
		return st;
	m->n_layers = layers;
	m->learned = !sinusoidal;
	m->table_rows = rows;
	m->table_cols = cols;
	m->context = (double)(rows - offset);
	m->train_context = m->context;
	if (offset)
		st = hf_fact(h, "position_offset",
		             (h->arch->flags & HF_OFFSET2)
		                     ? "positions index the table from this row (the embedding "
		                       "adds 2: OPTLearnedPositionalEmbedding, "
		                       "BartLearnedPositionalEmbedding)"
		                     : "positions index the table from padding_idx + 1 "
		                       "(create_position_ids_from_input_ids)",
		             "%zu", offset);
	if (st == PE_OK)
		st = other_rows(h);
	if (st != PE_OK)
		return st;
	if (sinusoidal) {
		char *spec = pe_asprintf("sinusoidal:label=%s", h->label);
		if (!spec)
			return PE_ENOMEM;
		st = hf_add_group(h, "all", spec);
		free(spec);
		if (st != PE_OK)
			return st;
		m->note = pe_asprintf("%s: the %zu x %zu table holds fixed sinusoids "
		                      "(create_sinusoidal_embeddings), the sinusoidal scheme",
		                      h->arch->sin_key, rows, cols);
		return m->note ? PE_OK : PE_ENOMEM;
	}
	m->note = pe_asprintf("a learned absolute table of %zu positions x %zu dimensions: its "
	                      "values are in the weights, not the config; use "
	                      "-s file:model.safetensors#%s",
	                      rows, cols,
	                      h->arch->what ? h->arch->what
	                                    : "TENSOR (posenc inspect lists the tensors)");
	return m->note ? PE_OK : PE_ENOMEM;
}

/*
 * A fixed sinusoidal table, the sinusoidal scheme with the row's layout
 * and frequencies: Marian's and Pegasus' [sin | cos] at 10000^(-2k/d)
 * from position 0, fairseq's [sin | cos] at 10000^(-k/(d/2 - 1)) from
 * padding_idx + 1 (M2M-100, XGLM, FSMT, Speech2Text), CTRL's. The table
 * has table_rows rows (fairseq's grows past them), table_cols wide.
 */
enum pe_status hf_read_sinusoidal(struct hf *h)
{
	struct pe_model *m = h->m;
	size_t rows = 0, cols = 0, layers = 0, start = 0;
	const char *rname = NULL;
	enum pe_status st = table_shape(h, &rows, &cols, &rname);
	if (st != PE_OK)
		return st;
	if (cols % 2 || cols < 4)
		return hf_fail(
		        h, PE_EFORMAT,
		        "%zu columns: posenc computes these sinusoids for an even width >= 4 "
		        "(an odd one pads or splits a column)",
		        cols);
	if (hf_cfg_count(h, "num_hidden_layers", &layers, NULL) < 0)
		return PE_EFORMAT;
	/* positions start at 2 (XGLM adds its offset) or at padding_idx + 1 */
	if ((st = first_row(h, SIZE_MAX, &start)) != PE_OK)
		return st;
	m->n_layers = layers;
	m->table_rows = rows;
	m->table_cols = cols;
	m->context = (double)rows;
	m->train_context = m->context;
	char *spec =
	        pe_asprintf("sinusoidal:%s,start=%zu,label=%s", h->arch->layout, start, h->label);
	if (!spec)
		return PE_ENOMEM;
	st = hf_add_group(h, "all", spec);
	free(spec);
	if (st == PE_OK && start)
		st = hf_fact(h, "position_offset",
		             "position p reads the sinusoid of p + this (fairseq's make_positions "
		             "counts from padding_idx + 1)",
		             "%zu", start);
	if (st == PE_OK)
		st = other_rows(h);
	if (st != PE_OK)
		return st;
	m->note = pe_asprintf("a fixed sinusoidal table of %zu positions (%s) x %zu dimensions, "
	                      "computed from the config (no weights needed)",
	                      rows, rname, cols);
	return m->note ? PE_OK : PE_ENOMEM;
}

/*
 * Whisper: the encoder adds fixed sinusoids (sinusoids(): [sin | cos] at
 * 10000^(-k/(d/2 - 1))), max_source_positions x d_model; the decoder a
 * learned table max_target_positions x d_model.
 */
enum pe_status hf_read_whisper(struct hf *h)
{
	struct pe_model *m = h->m;
	size_t src = 0, tgt = 0, d = 0, enc = 0, dec = 0;
	if (hf_cfg_count(h, "max_source_positions", &src, NULL) < 0 ||
	    hf_cfg_count(h, "max_target_positions", &tgt, NULL) < 0 ||
	    hf_cfg_count(h, "hidden_size", &d, NULL) < 0 ||
	    hf_cfg_count(h, "encoder_layers", &enc, NULL) < 0 ||
	    hf_cfg_count(h, "decoder_layers", &dec, NULL) < 0)
		return PE_EFORMAT;
	if (!src || !tgt || !d)
		return hf_fail(h, PE_EFORMAT,
		               "max_source_positions, max_target_positions, d_model: missing");
	if (d % 2 || d < 4)
		return hf_fail(h, PE_EFORMAT, "d_model: %zu is not an even number >= 4", d);
	/* not learned = 1: the encoder group is computable; the table is the decoder's */
	m->table_rows = tgt;
	m->table_cols = d;
	m->context = (double)tgt;
	m->train_context = (double)tgt;
	m->n_layers = enc + dec;
	char *spec = pe_asprintf("sinusoidal:layout=blocks,freq=t2t,label=%s encoder", h->label);
	if (!spec)
		return PE_ENOMEM;
	enum pe_status st = hf_add_group(h, "encoder", spec);
	free(spec);
	if (st == PE_OK)
		st = hf_fact(h, "encoder_positions",
		             "the encoder's fixed sinusoidal table (sinusoids(), the encoder "
		             "group) has this many rows",
		             "%zu", src);
	if (st != PE_OK)
		return st;
	m->note = pe_asprintf("the decoder's positions are a learned table of %zu positions x "
	                      "%zu dimensions, in the weights (-s "
	                      "file:model.safetensors#%s); the encoder adds fixed sinusoids, "
	                      "%zu x %zu (group encoder)",
	                      tgt, d, h->arch->what, src, d);
	return m->note ? PE_OK : PE_ENOMEM;
}
