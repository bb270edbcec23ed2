//! A regular-expression matcher for the subset the document's parameter
//! patterns use (literals, escapes of punctuation and `\uXXXX`, classes with
//! ranges and negated classes, non-capturing groups, alternation, `?`, `*`, `+`, `{m,n}`, `^`, `$`);
//! anything else is a test failure, so a pattern this cannot read is never
//! passed unread. The test dependencies hold a regex generator (proptest) but
//! no matcher.

pub enum Node {
    Char(char),
    /// Ranges, and whether the class is negated.
    Class(Vec<(char, char)>, bool),
    Group(Vec<Vec<Node>>),
    Repeat(Box<Node>, usize, Option<usize>),
    Start,
    End,
}

pub fn is_match(pattern: &str, text: &str) -> bool {
    let mut p = Parser {
        chars: pattern.chars().collect(),
        at: 0,
    };
    let alternatives = p.alternation();
    assert_eq!(p.at, p.chars.len(), "{pattern} parses to the end");
    let text: Vec<char> = text.chars().collect();
    let root = [Node::Group(alternatives)];
    (0..=text.len()).any(|i| matches(&root, &text, i, &mut |_| true))
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

impl Parser {
    fn next(&mut self) -> char {
        self.at += 1;
        self.chars[self.at - 1]
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn alternation(&mut self) -> Vec<Vec<Node>> {
        let mut alternatives = vec![self.sequence()];
        while self.peek() == Some('|') {
            self.at += 1;
            alternatives.push(self.sequence());
        }
        alternatives
    }

    fn sequence(&mut self) -> Vec<Node> {
        let mut nodes = Vec::new();
        while let Some(c) = self.peek().filter(|c| *c != '|' && *c != ')') {
            let atom = self.atom(c);
            let (min, max) = match self.peek() {
                Some('?') => (0, Some(1)),
                Some('*') => (0, None),
                Some('+') => (1, None),
                Some('{') => self.counted(),
                _ => {
                    nodes.push(atom);
                    continue;
                }
            };
            self.at += 1;
            nodes.push(Node::Repeat(Box::new(atom), min, max));
        }
        nodes
    }

    fn atom(&mut self, c: char) -> Node {
        self.at += 1;
        match c {
            '^' => Node::Start,
            '$' => Node::End,
            '(' => {
                assert_eq!((self.next(), self.next()), ('?', ':'), "only (?:...)");
                let group = Node::Group(self.alternation());
                assert_eq!(self.next(), ')');
                group
            }
            '[' => self.class(),
            '\\' => Node::Char(self.escaped()),
            '.' | '{' | '}' | ']' => panic!("unsupported '{c}' in a pattern"),
            c => Node::Char(c),
        }
    }

    /// `{m}` or `{m,n}`, up to (not past) the closing brace.
    fn counted(&mut self) -> (usize, Option<usize>) {
        let close = self.chars[self.at..]
            .iter()
            .position(|c| *c == '}')
            .expect("a closed {m,n}");
        let inner: String = self.chars[self.at + 1..self.at + close].iter().collect();
        self.at += close;
        let number = |s: &str| s.parse::<usize>().expect("{m,n} holds numbers");
        match inner.split_once(',') {
            None => (number(&inner), Some(number(&inner))),
            Some((m, n)) => (number(m), Some(number(n))),
        }
    }

    fn escaped(&mut self) -> char {
        let c = self.next();
        if c == 'u' {
            let hex: String = (0..4).map(|_| self.next()).collect();
            let code = u32::from_str_radix(&hex, 16).expect("\\uXXXX holds hex digits");
            return char::from_u32(code).expect("\\uXXXX names a character");
        }
        assert!(c.is_ascii_punctuation(), "unsupported escape \\{c}");
        c
    }

    fn class(&mut self) -> Node {
        let negated = self.peek() == Some('^');
        if negated {
            self.at += 1;
        }
        let mut ranges = Vec::new();
        loop {
            let first = match self.next() {
                ']' => return Node::Class(ranges, negated),
                '\\' => self.escaped(),
                c => c,
            };
            let last = if self.peek() == Some('-') && self.chars[self.at + 1] != ']' {
                self.at += 1;
                match self.next() {
                    '\\' => self.escaped(),
                    c => c,
                }
            } else {
                first
            };
            ranges.push((first, last));
        }
    }
}

fn matches(nodes: &[Node], text: &[char], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
    let Some((node, rest)) = nodes.split_first() else {
        return k(i);
    };
    match node {
        Node::Char(c) => text.get(i) == Some(c) && matches(rest, text, i + 1, k),
        Node::Class(ranges, negated) => {
            text.get(i)
                .is_some_and(|t| ranges.iter().any(|(a, b)| (a..=b).contains(&t)) != *negated)
                && matches(rest, text, i + 1, k)
        }
        Node::Start => i == 0 && matches(rest, text, i, k),
        Node::End => i == text.len() && matches(rest, text, i, k),
        Node::Group(alternatives) => alternatives
            .iter()
            .any(|alt| matches(alt, text, i, &mut |j| matches(rest, text, j, k))),
        Node::Repeat(sub, min, max) => repeat(sub, (*min, *max, 0), rest, text, i, k),
    }
}

/// Greedy: one more `sub` (if that consumes something), else on to `rest`.
fn repeat(
    sub: &Node,
    (min, max, count): (usize, Option<usize>, usize),
    rest: &[Node],
    text: &[char],
    i: usize,
    k: &mut dyn FnMut(usize) -> bool,
) -> bool {
    let more = max.is_none_or(|max| count < max);
    (more
        && matches(std::slice::from_ref(sub), text, i, &mut |j| {
            j != i && repeat(sub, (min, max, count + 1), rest, text, j, k)
        }))
        || (count >= min && matches(rest, text, i, k))
}
