//! Reading a document's lines: the spans a path may be in (backticks, links,
//! parentheses), a word's path part, and the targets after `make`.

/// Where a span of a line was found.
#[derive(Clone, Copy, PartialEq)]
pub enum Span {
    Backticks,
    Parentheses,
    Link,
}

/// The spans of one line to read: backticks, link targets and parentheses
/// (a link's target is read once, as a link), in the order of the line.
/// `open` says whether a parenthesis of an earlier line of the paragraph is
/// still open, and is left saying it for the next.
pub fn spans<'a>(line: &'a str, open: &mut bool) -> Vec<(&'a str, Span)> {
    let mut found = Vec::new();
    if *open {
        let end = line.find(')').unwrap_or(line.len());
        found.push((0, &line[..end], Span::Parentheses));
    }
    let mut depth = usize::from(*open);
    for c in line.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    *open = depth > 0;
    let mut from = 0;
    while let Some(open) = line[from..].find('`').map(|i| from + i + 1) {
        let Some(close) = line[open..].find('`').map(|i| open + i) else {
            break;
        };
        found.push((open, &line[open..close], Span::Backticks));
        from = close + 1;
    }
    let bytes = line.as_bytes();
    for (i, _) in line.match_indices('(') {
        let inner = &line[i + 1..];
        let end = inner.find(')').unwrap_or(inner.len());
        let kind = if i > 0 && bytes[i - 1] == b']' {
            Span::Link
        } else {
            Span::Parentheses
        };
        found.push((i + 1, &inner[..end], kind));
    }
    found.sort_by_key(|(at, _, _)| *at);
    found
        .into_iter()
        .map(|(_, span, kind)| (span, kind))
        .collect()
}

/// A word's path part: up to the first character a path here never holds
/// (so `src/x.rs:12` gives `src/x.rs`), without a sentence's last dot, and
/// the line number after a colon, if any.
pub fn path_part(word: &str) -> (&str, Option<usize>) {
    let word = word.trim_start_matches(['"', '\'', '[', '<', '`']);
    let word = word.strip_prefix("./").unwrap_or(word);
    let end = word
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_./*@-".contains(c)))
        .unwrap_or(word.len());
    let line = word[end..].strip_prefix(':').and_then(|tail| {
        let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    });
    (word[..end].trim_end_matches('.'), line)
}

/// The `make` targets a piece of text names: the words after `make` up to
/// the first that is not a target's name (a flag, `VAR=x`, `&&`, `#`).
pub fn named_targets(text: &str) -> Vec<&str> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut found = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if *word != "make" {
            continue;
        }
        for target in &words[i + 1..] {
            let target = target.trim_end_matches([',', ';', '.', ')', '`']);
            let is_name = !target.is_empty()
                && target.starts_with(|c: char| c.is_ascii_lowercase())
                && target
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            if !is_name {
                break;
            }
            found.push(target);
        }
    }
    found
}
