//! Owns the line table of one source text: where each line starts, built
//! once per file so that every line lookup afterwards is O(1) (or O(log n)
//! from a byte offset). Does not know about syntax.
//!
//! Lines are 0-based here; the public model is 1-based and the conversion
//! happens where `Symbol`/`Chunk` values are built.

/// Byte offsets of the starts of every line of `src`.
///
/// A trailing newline does not open an empty last line, so `"a\nb\n"` has
/// two lines and `""` has none.
pub(crate) struct Lines<'a> {
    src: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(src: &'a str) -> Lines<'a> {
        let mut starts = Vec::with_capacity(src.len() / 32 + 1);
        if !src.is_empty() {
            starts.push(0);
        }
        let bytes = src.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' && i + 1 < bytes.len() {
                starts.push(i + 1);
            }
        }
        Lines { src, starts }
    }

    pub(crate) fn src(&self) -> &'a str {
        self.src
    }

    pub(crate) fn count(&self) -> usize {
        self.starts.len()
    }

    /// Byte range of line `i` without its line terminator (`\n` or `\r\n`).
    pub(crate) fn range(&self, i: usize) -> (usize, usize) {
        let Some(&start) = self.starts.get(i) else {
            return (self.src.len(), self.src.len());
        };
        let mut end = self.starts.get(i + 1).copied().unwrap_or(self.src.len());
        let bytes = self.src.as_bytes();
        if end > start && bytes[end - 1] == b'\n' {
            end -= 1;
        }
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        (start, end)
    }

    /// Text of line `i` without its line terminator; empty past the end.
    pub(crate) fn line(&self, i: usize) -> &'a str {
        let (s, e) = self.range(i);
        self.src.get(s..e).unwrap_or("")
    }

    /// Length in bytes of line `i` without its terminator.
    pub(crate) fn len_of(&self, i: usize) -> usize {
        let (s, e) = self.range(i);
        e - s
    }

    pub(crate) fn is_blank(&self, i: usize) -> bool {
        self.line(i).trim().is_empty()
    }

    /// Text of lines `first..=last` joined by their original terminators,
    /// without the terminator of `last`.
    pub(crate) fn text(&self, first: usize, last: usize) -> &'a str {
        if first > last || first >= self.count() {
            return "";
        }
        let start = self.range(first).0;
        let end = self.range(last.min(self.count() - 1)).1;
        self.src.get(start..end).unwrap_or("")
    }

    /// Where `part`, a slice of this text (every line and span handed out
    /// here is one), starts in it. An empty string from elsewhere (the
    /// `""` handed out past the end) is at 0.
    pub(crate) fn offset_of(&self, part: &str) -> usize {
        let at = (part.as_ptr() as usize).wrapping_sub(self.src.as_ptr() as usize);
        let inside = at
            .checked_add(part.len())
            .is_some_and(|end| end <= self.src.len());
        debug_assert!(inside || part.is_empty(), "not a slice of the text");
        if inside { at } else { 0 }
    }

    /// Bytes of lines `first..=last` (terminators included but the last).
    pub(crate) fn bytes_between(&self, first: usize, last: usize) -> usize {
        self.text(first, last).len()
    }

    /// Length of the longest line in bytes.
    pub(crate) fn max_len(&self) -> usize {
        (0..self.count()).map(|i| self.len_of(i)).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_and_text() {
        let l = Lines::new("a\r\nbb\n\nccc");
        assert_eq!(l.count(), 4);
        assert_eq!(l.line(0), "a");
        assert_eq!(l.line(1), "bb");
        assert!(l.is_blank(2));
        assert_eq!(l.line(3), "ccc");
        assert_eq!(l.text(0, 1), "a\r\nbb");
        assert_eq!(l.text(1, 3), "bb\n\nccc");
        assert_eq!(l.line(9), "");
        let src = l.src();
        for (part, at) in [
            (l.line(1), 3),
            (l.text(1, 3), 3),
            (l.line(3), 7),
            (l.line(9), 10),
        ] {
            assert_eq!(l.offset_of(part), at);
            assert_eq!(&src[at..at + part.len()], part);
        }
        assert_eq!(Lines::new("").count(), 0);
        assert_eq!(Lines::new("x\n").count(), 1);
        assert_eq!(Lines::new("\n").count(), 1);
    }
}
