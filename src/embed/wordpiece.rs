//! Owns the BERT tokenizer pipeline (BertNormalizer, BertPreTokenizer,
//! WordPiece) as plain hash lookups, for the two in-process models whose
//! `tokenizer.json` describes exactly that pipeline: the static model's
//! query form ([`super::static_query`]) and the BERT encoder
//! ([`super::bert`]). Anything else (`from_json` returns `None`) goes to
//! the `tokenizers` crate.
//!
//! Port of `model2vec-rs` 0.4's `src/fast_wordpiece.rs` (MIT licence, by
//! the MinishLab authors), with the trie walk replaced by hash lookups.
//! Tests compare it with `model2vec-rs` (`static_query_matches_model2vec`)
//! and with the `tokenizers` crate on MiniLM's tokenizer
//! (`bert_wordpiece_matches_tokenizers`), on every chunk of a corpus and on
//! tricky Unicode.
//!
//! Why it exists for the encoder (measured, session 83): `tokenizers`
//! builds its model from `tokenizer.json` in ~40 ms, a tenth of a cold CLI
//! search that answers from MiniLM; this reads the same file in a few.

use serde::Deserialize;
use unicode_categories::UnicodeCategories;
use unicode_normalization::UnicodeNormalization;

/// The parts of `tokenizer.json` that [`WordPiece::from_json`] reads.
#[derive(Deserialize)]
struct TokenizerJson {
    #[serde(default)]
    added_tokens: Vec<AddedTokenJson>,
    normalizer: Option<NormalizerJson>,
    pre_tokenizer: Option<PreTokenizerJson>,
    model: ModelJson,
    post_processor: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct AddedTokenJson {
    content: String,
    single_word: bool,
    lstrip: bool,
    rstrip: bool,
    normalized: bool,
}

#[derive(Deserialize)]
struct NormalizerJson {
    #[serde(rename = "type")]
    kind: String,
    clean_text: Option<bool>,
    handle_chinese_chars: Option<bool>,
    strip_accents: Option<bool>,
    lowercase: Option<bool>,
}

#[derive(Deserialize)]
struct PreTokenizerJson {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct ModelJson {
    #[serde(rename = "type")]
    kind: Option<String>,
    unk_token: Option<String>,
    continuing_subword_prefix: Option<String>,
    max_input_chars_per_word: Option<usize>,
    #[serde(default, deserialize_with = "sized_vocab")]
    vocab: Option<foldhash::HashMap<String, u32>>,
}

/// The vocabulary map, allocated once: grown entry by entry, its rehashes
/// were a sixth of loading the model.
fn sized_vocab<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<foldhash::HashMap<String, u32>>, D::Error> {
    struct Vocab;
    impl<'de> serde::de::Visitor<'de> for Vocab {
        type Value = foldhash::HashMap<String, u32>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of tokens to ids")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut m: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let mut out = foldhash::HashMap::with_capacity_and_hasher(
                m.size_hint().unwrap_or(0).max(1 << 15),
                Default::default(),
            );
            while let Some((k, v)) = m.next_entry::<String, u32>()? {
                out.insert(k, v);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Vocab).map(Some)
}

/// IDs-only WordPiece for the BERT pipeline (see the module comment).
pub(super) struct WordPiece {
    vocab: foldhash::HashMap<String, u32>,
    continuing_subword_prefix: String,
    pub(super) unk_id: Option<u32>,
    max_input_chars_per_word: usize,
    clean_text: bool,
    handle_chinese_chars: bool,
    strip_accents: bool,
    lowercase: bool,
    /// Longest content first, so a shorter token cannot shadow a longer one.
    pub(super) added_tokens: Vec<(String, u32)>,
    added_token_first_bytes: [bool; 256],
    pub(super) median_token_length: usize,
    /// `[CLS]` and `[SEP]`'s ids when the post-processor wraps a single
    /// text in exactly them (BERT's template), which the encoder needs.
    pub(super) cls_sep: Option<(u32, u32)>,
}

impl WordPiece {
    /// `None` exactly where model2vec-rs's `FastWordPiece::from_json` gives
    /// up (another pipeline, a missing field, added tokens it does not
    /// handle): model2vec-rs then tokenizes with the `tokenizers` crate,
    /// which this module does not reproduce.
    pub(super) fn from_json(bytes: &[u8]) -> Option<WordPiece> {
        let json: TokenizerJson = serde_json::from_slice(bytes).ok()?;
        let model = json.model;
        if model.kind.as_deref() != Some("WordPiece")
            || json.pre_tokenizer?.kind != "BertPreTokenizer"
        {
            return None;
        }
        let norm = json.normalizer?;
        if norm.kind != "BertNormalizer" {
            return None;
        }
        let lowercase = norm.lowercase?;
        let vocab = model.vocab?;
        let cls_sep = json
            .post_processor
            .as_ref()
            .and_then(|p| single_template(p, &vocab));
        let unk_id = *vocab.get(&model.unk_token?)?;
        let mut added_tokens: Vec<(String, u32)> = Vec::with_capacity(json.added_tokens.len());
        for t in json.added_tokens {
            if t.content.is_empty() || t.normalized || t.single_word || t.lstrip || t.rstrip {
                return None;
            }
            if added_tokens
                .iter()
                .any(|(content, _)| *content == t.content)
            {
                return None;
            }
            let id = *vocab.get(&t.content)?;
            added_tokens.push((t.content, id));
        }
        added_tokens.sort_by(|(a, _), (b, _)| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        let mut added_token_first_bytes = [false; 256];
        for (content, _) in &added_tokens {
            added_token_first_bytes[content.as_bytes()[0] as usize] = true;
        }
        let mut lens: Vec<usize> = vocab.keys().map(String::len).collect();
        lens.sort_unstable();
        let median_token_length = lens.get(lens.len() / 2).copied().unwrap_or(1);
        Some(WordPiece {
            continuing_subword_prefix: model.continuing_subword_prefix?,
            unk_id: Some(unk_id),
            max_input_chars_per_word: model.max_input_chars_per_word?,
            clean_text: norm.clean_text?,
            handle_chinese_chars: norm.handle_chinese_chars?,
            // `strip_accents: None` follows the lowercase setting, as in
            // Hugging Face's tokenizers.
            strip_accents: norm.strip_accents.unwrap_or(lowercase),
            lowercase,
            added_tokens,
            added_token_first_bytes,
            median_token_length,
            cls_sep,
            vocab,
        })
    }

    pub(super) fn max_id(&self) -> usize {
        self.vocab.values().copied().max().unwrap_or(0) as usize
    }

    /// Appends the token ids of `text` (unknown words as the unk id).
    pub(super) fn encode_ids(&self, text: &str, out: &mut Vec<u32>) {
        let mut piece = String::new();
        self.encode_with(text, out, &mut |word, out| {
            self.word_to_ids(word, out, &mut piece)
        });
    }

    /// [`Self::encode_ids`] with each word's ids from `word` (which may
    /// remember them: code repeats its words).
    pub(super) fn encode_with(
        &self,
        text: &str,
        out: &mut Vec<u32>,
        word: &mut dyn FnMut(&str, &mut Vec<u32>),
    ) {
        let mut scratch = String::new();
        // Split on added tokens (leftmost-longest), then run the BERT
        // pipeline on each span of ordinary text between them.
        let bytes = text.as_bytes();
        let mut start = 0;
        let mut i = 0;
        while i < text.len() {
            let hit = self.added_token_first_bytes[bytes[i] as usize]
                .then(|| {
                    self.added_tokens
                        .iter()
                        .find(|(content, _)| text[i..].starts_with(content.as_str()))
                })
                .flatten();
            match hit {
                Some((content, id)) => {
                    self.encode_span(&text[start..i], out, &mut scratch, word);
                    out.push(*id);
                    i += content.len();
                    start = i;
                }
                // Added tokens are valid UTF-8: step a whole char.
                None => i += text[i..].chars().next().map_or(1, char::len_utf8),
            }
        }
        self.encode_span(&text[start..], out, &mut scratch, word);
    }

    fn encode_span(
        &self,
        span: &str,
        out: &mut Vec<u32>,
        normalized: &mut String,
        word: &mut dyn FnMut(&str, &mut Vec<u32>),
    ) {
        if span.is_empty() {
            return;
        }
        normalized.clear();
        self.normalize_into(span, normalized);
        pre_tokenize(normalized, |w| word(w, out));
    }

    fn push_unk(&self, out: &mut Vec<u32>) {
        if let Some(u) = self.unk_id {
            out.push(u);
        }
    }

    /// Greedy longest-match-first. A word that cannot be fully tokenized
    /// (or exceeds `max_input_chars_per_word`) maps to one unk token.
    pub(super) fn word_to_ids(&self, word: &str, out: &mut Vec<u32>, piece: &mut String) {
        if word.len() > self.max_input_chars_per_word
            && word.chars().count() > self.max_input_chars_per_word
        {
            self.push_unk(out);
            return;
        }
        let mark = out.len();
        let mut start = 0;
        while start < word.len() {
            // Vocabulary entries are valid UTF-8, so a match ends on a char
            // boundary: try the longest first.
            let mut found = None;
            let mut end = word.len();
            while end > start {
                if word.is_char_boundary(end) {
                    piece.clear();
                    if start > 0 {
                        piece.push_str(&self.continuing_subword_prefix);
                    }
                    piece.push_str(&word[start..end]);
                    if let Some(&id) = self.vocab.get(piece.as_str()) {
                        found = Some((id, end));
                        break;
                    }
                }
                end -= 1;
            }
            match found {
                Some((id, end)) => {
                    out.push(id);
                    start = end;
                }
                None => {
                    out.truncate(mark);
                    self.push_unk(out);
                    return;
                }
            }
        }
    }

    /// Appends the normalized `input` to `out`.
    fn normalize_into(&self, input: &str, out: &mut String) {
        if input.is_ascii() {
            self.normalize_ascii(input, out)
        } else {
            self.normalize_mixed(input, out)
        }
    }

    /// Runs of printable ASCII (plus `\t\n\r`) take the ASCII path,
    /// everything between them the Unicode path.
    fn normalize_mixed(&self, input: &str, out: &mut String) {
        out.reserve(input.len());
        let bytes = input.as_bytes();
        let mut start = 0;
        while start < bytes.len() {
            let plain = is_plain_ascii(bytes[start]);
            let end = bytes[start..]
                .iter()
                .position(|&b| is_plain_ascii(b) != plain)
                .map_or(bytes.len(), |n| start + n);
            let run = &input[start..end];
            if plain {
                self.normalize_ascii(run, out);
            } else {
                self.normalize_unicode(run, out);
            }
            start = end;
        }
    }

    fn normalize_ascii(&self, input: &str, out: &mut String) {
        out.reserve(input.len());
        for &orig in input.as_bytes() {
            let mut b = orig;
            if self.clean_text {
                match b {
                    b'\t' | b'\n' | b'\r' => b = b' ',
                    0..=0x1f | 0x7f => continue,
                    _ => {}
                }
            }
            if self.lowercase && b.is_ascii_uppercase() {
                b += b'a' - b'A';
            }
            out.push(b as char);
        }
    }

    /// Clean + Chinese-character step for one char.
    fn stage(&self, c: char) -> [Option<char>; 3] {
        if self.clean_text {
            if c == '\0' || c == '\u{fffd}' || is_control(c) {
                return [None; 3];
            }
            if is_whitespace(c) {
                return [Some(' '), None, None];
            }
        }
        if self.handle_chinese_chars && is_chinese_char(c) {
            return [Some(' '), Some(c), Some(' ')];
        }
        [Some(c), None, None]
    }

    fn normalize_unicode(&self, input: &str, out: &mut String) {
        let staged = input
            .chars()
            .flat_map(|c| self.stage(c).into_iter().flatten());
        if self.strip_accents {
            // NFD, drop nonspacing marks, then lowercase; left decomposed.
            for c in staged.nfd() {
                if c.is_mark_nonspacing() {
                    continue;
                }
                if self.lowercase {
                    out.extend(c.to_lowercase());
                } else {
                    out.push(c);
                }
            }
        } else if self.lowercase {
            out.extend(staged.flat_map(char::to_lowercase));
        } else {
            out.extend(staged);
        }
    }
}

/// `[CLS]` and `[SEP]`'s ids when `post` (a `tokenizer.json`
/// post-processor) turns one text `A` into `[CLS] A [SEP]` and nothing
/// else: BERT's `BertProcessing`, or a `TemplateProcessing` of that form
/// whose special tokens are single vocabulary ids.
fn single_template(
    post: &serde_json::Value,
    vocab: &foldhash::HashMap<String, u32>,
) -> Option<(u32, u32)> {
    let id_of = |name: &str| -> Option<u32> {
        let ids = post["special_tokens"][name]["ids"].as_array()?;
        match ids[..] {
            [ref id] => u32::try_from(id.as_u64()?).ok(),
            _ => None,
        }
    };
    match post["type"].as_str()? {
        "BertProcessing" => {
            let pair = |k: &str| -> Option<u32> {
                let v = post[k].as_array()?;
                let id = u32::try_from(v.get(1)?.as_u64()?).ok()?;
                (vocab.get(v.first()?.as_str()?) == Some(&id)).then_some(id)
            };
            Some((pair("cls")?, pair("sep")?))
        }
        "TemplateProcessing" => {
            let single = post["single"].as_array()?;
            let [first, seq, last] = &single[..] else {
                return None;
            };
            let special = |v: &serde_json::Value| -> Option<u32> {
                let t = &v["SpecialToken"];
                if t["type_id"].as_u64() != Some(0) {
                    return None;
                }
                id_of(t["id"].as_str()?)
            };
            if seq["Sequence"]["id"].as_str() != Some("A")
                || seq["Sequence"]["type_id"].as_u64() != Some(0)
            {
                return None;
            }
            Some((special(first)?, special(last)?))
        }
        _ => None,
    }
}

/// ASCII byte class: 0 = word, 1 = space, 2 = punctuation.
fn ascii_class(b: u8) -> u8 {
    match b {
        b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' => 1,
        b'!'..=b'/' | b':'..=b'@' | b'['..=b'`' | b'{'..=b'~' => 2,
        _ => 0,
    }
}

/// BertPreTokenizer: drop whitespace, each punctuation char is a word.
fn pre_tokenize<'a>(s: &'a str, mut emit: impl FnMut(&'a str)) {
    let mut start: Option<usize> = None;
    for (i, c) in s.char_indices() {
        let class = if c.is_ascii() {
            ascii_class(c as u8)
        } else if c.is_whitespace() {
            1
        } else if c.is_ascii_punctuation() || c.is_punctuation() {
            2
        } else {
            0
        };
        match class {
            1 => {
                if let Some(st) = start.take() {
                    emit(&s[st..i]);
                }
            }
            2 => {
                if let Some(st) = start.take() {
                    emit(&s[st..i]);
                }
                emit(&s[i..i + c.len_utf8()]);
            }
            _ => {
                if start.is_none() {
                    start = Some(i);
                }
            }
        }
    }
    if let Some(st) = start {
        emit(&s[st..]);
    }
}

/// Printable ASCII or `\t\n\r`: bytes the ASCII path keeps.
fn is_plain_ascii(b: u8) -> bool {
    matches!(b, b' '..=b'~' | b'\t' | b'\n' | b'\r')
}

fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

fn is_control(c: char) -> bool {
    match c {
        '\t' | '\n' | '\r' => false,
        _ => c.is_other(),
    }
}

fn is_chinese_char(c: char) -> bool {
    let r = c as u32;
    (0x4E00..=0x9FFF).contains(&r)
        || (0x3400..=0x4DBF).contains(&r)
        || (0x20000..=0x2A6DF).contains(&r)
        || (0x2A700..=0x2B73F).contains(&r)
        || (0x2B740..=0x2B81F).contains(&r)
        || (0x2B920..=0x2CEAF).contains(&r)
        || (0xF900..=0xFAFF).contains(&r)
        || (0x2F800..=0x2FA1F).contains(&r)
}
