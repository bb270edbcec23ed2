//! One line of JSON read into a `serde_json::Value`, noting every object
//! that repeats a key. serde_json's own `Value` keeps the last of two equal
//! keys without a word, so `{"score": 6, "score": 9}` would import 9 however
//! the operator meant it; here the repetition is reported instead. A line
//! holds at most `VALUES_MAX` values, so that the tree built from a row of
//! up to 16 MiB stays small (a `Value` takes 32 bytes, where `0,` takes 2).

use std::cell::{Cell, RefCell};

use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The most values (numbers, strings, arrays, objects...) one line may hold:
/// an area's polygon of 100,000 vertices takes 300,000.
pub const VALUES_MAX: usize = 500_000;

/// Why a line cannot be read.
#[derive(Debug)]
pub enum Unreadable {
    Json(serde_json::Error),
    TooManyValues,
}

/// The value of `bytes` (one JSON text, nothing after it) and the path of
/// every repeated key (`dimensions.safety.score`, `history[0].date`), in
/// reading order; of two equal keys the first value is kept.
pub fn parse(bytes: &[u8]) -> Result<(Value, Vec<String>), Unreadable> {
    let repeated = RefCell::new(Vec::new());
    let values = Cell::new(0);
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let seed = Seed {
        path: String::new(),
        repeated: &repeated,
        values: &values,
    };
    let unreadable = |e| match values.get() > VALUES_MAX {
        true => Unreadable::TooManyValues,
        false => Unreadable::Json(e),
    };
    let value = seed.deserialize(&mut reader).map_err(unreadable)?;
    reader.end().map_err(unreadable)?;
    Ok((value, repeated.into_inner()))
}

/// Reads the value at `path`, adding repeated keys to `repeated` and
/// counting every value in `values`.
struct Seed<'a> {
    path: String,
    repeated: &'a RefCell<Vec<String>>,
    values: &'a Cell<usize>,
}

impl Seed<'_> {
    fn at(&self, path: String) -> Self {
        Seed {
            path,
            repeated: self.repeated,
            values: self.values,
        }
    }

    /// Counts one more value, failing past `VALUES_MAX`.
    fn count<E: Error>(&self) -> Result<(), E> {
        self.values.set(self.values.get() + 1);
        match self.values.get() > VALUES_MAX {
            true => Err(E::custom("too many values")),
            false => Ok(()),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        // serde_json bounds the nesting of arrays and objects, so this recursion is bounded too.
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: Error>(self, v: bool) -> Result<Value, E> {
        self.count()?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<Value, E> {
        self.count()?;
        Ok(Value::from(v))
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<Value, E> {
        self.count()?;
        Ok(Value::from(v))
    }

    fn visit_f64<E: Error>(self, v: f64) -> Result<Value, E> {
        self.count()?;
        Ok(Value::from(v))
    }

    fn visit_str<E: Error>(self, v: &str) -> Result<Value, E> {
        self.count()?;
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E: Error>(self, v: String) -> Result<Value, E> {
        self.count()?;
        Ok(Value::String(v))
    }

    fn visit_unit<E: Error>(self) -> Result<Value, E> {
        self.count()?;
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.count()?;
        let mut items = Vec::new();
        while let Some(item) =
            seq.next_element_seed(self.at(format!("{}[{}]", self.path, items.len())))?
        {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.count()?;
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = match self.path.as_str() {
                "" => key.clone(),
                parent => format!("{parent}.{key}"),
            };
            let value = map.next_value_seed(self.at(path.clone()))?;
            if object.contains_key(&key) {
                self.repeated.borrow_mut().push(path);
            } else {
                object.insert(key, value);
            }
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_serde_json_and_names_every_repeated_key() {
        let text = br#"{"a": [1, -2, 3.5, "x", null, true, {"b": 1, "b": 2}], "c": {"d": {}}, "a": 0, "c": 1}"#;
        let (value, repeated) = parse(text).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"a": [1, -2, 3.5, "x", null, true, {"b": 1}], "c": {"d": {}}})
        );
        assert_eq!(repeated, ["a[6].b", "a", "c"]);
    }

    #[test]
    fn bad_json_and_trailing_text_are_errors() {
        for bad in [&b"{\"a\": "[..], b"{} {}", b"[1,]", b""] {
            assert!(
                matches!(parse(bad), Err(Unreadable::Json(_))),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
        assert!(parse(deep.as_bytes()).is_err(), "nesting is bounded");
    }

    #[test]
    fn a_line_holds_at_most_values_max_values() {
        let array = |n: usize| format!("[{}]", vec!["0"; n].join(","));
        assert!(parse(array(VALUES_MAX - 1).as_bytes()).is_ok());
        assert!(matches!(
            parse(array(VALUES_MAX).as_bytes()),
            Err(Unreadable::TooManyValues)
        ));
    }
}
