//! Client records and journal events read in one pass.
//!
//! Each line is parsed once, both to refuse a repeated key anywhere in it
//! (the rule of [`crate::strictjson`]) and into the typed record: a field
//! the record names is read into its slot and refused when it comes again;
//! any other key is remembered by name (refused when repeated) and its
//! value read with [`StrictIgnore`], which refuses a repeated key at any
//! depth inside it. A line must be a JSON object (a derived struct would
//! also take a JSON array of the fields in order; these readers refuse it).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use crate::run::record::{ClientRecord, JournalEvent, Status};
use crate::strictjson::StrictIgnore;

/// The error for a key met twice, worded as [`crate::strictjson`] words it.
fn repeated<E: de::Error>(key: &str) -> E {
    E::custom(format!("duplicate key {key:?} in a JSON object"))
}

/// A string of the line: borrowed from it when it holds no escape (no
/// allocation per id and key of every journal event).
pub struct Text<'de>(pub Cow<'de, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(v.to_owned())))
    }
}

/// A key of the object: the index of a field the record names, or another
/// key (kept by name only to refuse it when repeated).
enum Key<'de> {
    Field(usize),
    Other(Cow<'de, str>),
}

struct KeySeed(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key<'de>, D::Error> {
        let Text(k) = Text::deserialize(d)?;
        Ok(match self.0.iter().position(|f| *f == k) {
            Some(i) => Key::Field(i),
            None => Key::Other(k),
        })
    }
}

/// Keys of the object that the record does not name.
#[derive(Default)]
struct Others<'de>(Vec<Cow<'de, str>>);

impl<'de> Others<'de> {
    /// Reads the value of another key `k`, refusing `k` when repeated.
    fn take<A: MapAccess<'de>>(&mut self, k: Cow<'de, str>, map: &mut A) -> Result<(), A::Error> {
        if self.0.contains(&k) {
            return Err(repeated(&k));
        }
        map.next_value_seed(StrictIgnore)?;
        self.0.push(k);
        Ok(())
    }
}

/// Reads the value of field `name` into `slot`, refusing a second one.
fn once<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    slot: &mut Option<T>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(repeated(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

fn need<T, E: de::Error>(v: Option<T>, name: &'static str) -> Result<T, E> {
    v.ok_or_else(|| E::missing_field(name))
}

const CLIENT_FIELDS: &[&str] = &[
    "request_id",
    "point",
    "warmup",
    "status",
    "sent_at",
    "first_token_at",
    "finished_at",
    "input_tokens",
    "output_tokens",
];

struct ClientVisitor;

impl<'de> Visitor<'de> for ClientVisitor {
    type Value = ClientRecord;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a client record (a JSON object)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ClientRecord, A::Error> {
        let mut request_id: Option<String> = None;
        let mut point: Option<String> = None;
        let mut warmup: Option<bool> = None;
        let mut status: Option<Status> = None;
        let mut sent_at: Option<f64> = None;
        // Required keys whose value may be null.
        let mut first_token_at: Option<Option<f64>> = None;
        let mut finished_at: Option<Option<f64>> = None;
        let mut input_tokens: Option<u64> = None;
        let mut output_tokens: Option<u64> = None;
        let mut others = Others::default();
        while let Some(k) = map.next_key_seed(KeySeed(CLIENT_FIELDS))? {
            let i = match k {
                Key::Field(i) => i,
                Key::Other(k) => {
                    others.take(k, &mut map)?;
                    continue;
                }
            };
            let name = CLIENT_FIELDS[i];
            match i {
                0 => once(&mut request_id, name, &mut map)?,
                1 => once(&mut point, name, &mut map)?,
                2 => once(&mut warmup, name, &mut map)?,
                3 => once(&mut status, name, &mut map)?,
                4 => once(&mut sent_at, name, &mut map)?,
                5 => once(&mut first_token_at, name, &mut map)?,
                6 => once(&mut finished_at, name, &mut map)?,
                7 => once(&mut input_tokens, name, &mut map)?,
                _ => once(&mut output_tokens, name, &mut map)?,
            }
        }
        Ok(ClientRecord {
            request_id: need(request_id, "request_id")?,
            point: need(point, "point")?,
            warmup: need(warmup, "warmup")?,
            status: need(status, "status")?,
            sent_at: need(sent_at, "sent_at")?,
            first_token_at: need(first_token_at, "first_token_at")?,
            finished_at: need(finished_at, "finished_at")?,
            input_tokens: need(input_tokens, "input_tokens")?,
            output_tokens: need(output_tokens, "output_tokens")?,
        })
    }
}

impl<'de> Deserialize<'de> for ClientRecord {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ClientVisitor)
    }
}

const EVENT_FIELDS: &[&str] = &["request_id", "point", "event", "at", "status"];

struct EventVisitor;

impl<'de> Visitor<'de> for EventVisitor {
    type Value = JournalEvent<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a journal event (a JSON object)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JournalEvent<'de>, A::Error> {
        let mut request_id: Option<Text<'de>> = None;
        let mut point: Option<Text<'de>> = None;
        let mut event: Option<Text<'de>> = None;
        let mut at: Option<f64> = None;
        // An absent status and a null one are both none.
        let mut status: Option<Option<Status>> = None;
        let mut others = Others::default();
        while let Some(k) = map.next_key_seed(KeySeed(EVENT_FIELDS))? {
            let i = match k {
                Key::Field(i) => i,
                Key::Other(k) => {
                    others.take(k, &mut map)?;
                    continue;
                }
            };
            let name = EVENT_FIELDS[i];
            match i {
                0 => once(&mut request_id, name, &mut map)?,
                1 => once(&mut point, name, &mut map)?,
                2 => once(&mut event, name, &mut map)?,
                3 => once(&mut at, name, &mut map)?,
                _ => once(&mut status, name, &mut map)?,
            }
        }
        Ok(JournalEvent {
            request_id: need(request_id, "request_id")?.0,
            point: need(point, "point")?.0,
            event: need(event, "event")?.0,
            at: need(at, "at")?,
            status: status.flatten(),
        })
    }
}

impl<'de> Deserialize<'de> for JournalEvent<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(EventVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strictjson::reject_duplicate_json_keys;

    const OK: &str = r#"{"request_id":"r1","point":"p","warmup":false,"status":"ok","sent_at":1.5,"first_token_at":2.0,"finished_at":3.0,"input_tokens":10,"output_tokens":4}"#;

    fn client(s: &str) -> Result<ClientRecord, String> {
        serde_json::from_str::<ClientRecord>(s).map_err(|e| e.to_string())
    }

    #[test]
    fn a_record_reads_as_before() {
        let r = client(OK).unwrap();
        assert_eq!(r.request_id, "r1");
        assert_eq!(r.first_token_at, Some(2.0));
        let null = OK.replace("\"first_token_at\":2.0", "\"first_token_at\":null");
        assert_eq!(client(&null).unwrap().first_token_at, None);
        let extra = OK.replace("{", r#"{"x":{"y":[1,{"z":2}]},"#);
        assert!(client(&extra).is_ok());
    }

    #[test]
    fn repeated_keys_are_refused_wherever_they_are() {
        for (dup, key) in [
            (OK.replace("{", r#"{"status":"error","#), "status"),
            (OK.replace("{", r#"{"a":1,"a":2,"#), "a"),
            (OK.replace("{", r#"{"a":{"b":1,"b":1},"#), "b"),
            (OK.replace("{", r#"{"a":[{"b":1,"b":1}],"#), "b"),
        ] {
            let e = client(&dup).unwrap_err();
            assert!(e.contains(&format!("duplicate key {key:?}")), "{dup}: {e}");
            // The same verdict as the document-wide check.
            assert!(reject_duplicate_json_keys(dup.as_bytes()).is_err());
        }
    }

    #[test]
    fn missing_fields_and_other_shapes_are_refused() {
        let no_status = OK.replace("\"status\":\"ok\",", "");
        assert!(client(&no_status)
            .unwrap_err()
            .contains("missing field `status`"));
        let no_first = OK.replace("\"first_token_at\":2.0,", "");
        assert!(client(&no_first)
            .unwrap_err()
            .contains("missing field `first_token_at`"));
        let array = r#"["r1","p",false,"ok",1.5,2.0,3.0,10,4]"#;
        assert!(client(array).is_err());
        assert!(client(&OK.replace("\"ok\"", "\"OK\"")).is_err());
        assert!(client(&OK.replace("10", "-1")).is_err());
    }

    #[test]
    fn journal_events_read_in_one_pass() {
        let t = r#"{"request_id":"r1","point":"p","event":"terminal","at":3.0,"status":"ok"}"#;
        let e: JournalEvent = serde_json::from_str(t).unwrap();
        assert_eq!(e.status, Some(Status::Ok));
        let s = r#"{"request_id":"r1","point":"p","event":"sent","at":1.0}"#;
        let e: JournalEvent = serde_json::from_str(s).unwrap();
        assert_eq!(e.status, None);
        let null = r#"{"request_id":"r1","point":"p","event":"sent","at":1.0,"status":null}"#;
        assert_eq!(
            serde_json::from_str::<JournalEvent>(null).unwrap().status,
            None
        );
        let dup = r#"{"request_id":"r1","point":"p","event":"sent","at":1.0,"at":2.0}"#;
        assert!(serde_json::from_str::<JournalEvent>(dup)
            .unwrap_err()
            .to_string()
            .contains("duplicate key \"at\""));
        let missing = r#"{"request_id":"r1","point":"p","at":1.0}"#;
        assert!(serde_json::from_str::<JournalEvent>(missing)
            .unwrap_err()
            .to_string()
            .contains("missing field `event`"));
    }

    /// The reference reading, for the differential test: the document-wide check
    /// for repeated keys, then the fields read from a `serde_json::Value`.
    fn reference(s: &str) -> Option<(String, bool, Option<f64>, u64)> {
        reject_duplicate_json_keys(s.as_bytes()).ok()?;
        let v: serde_json::Value = serde_json::from_str(s).ok()?;
        let o = v.as_object()?;
        let nullable = |k: &str| match o.get(k)? {
            serde_json::Value::Null => Some(None),
            x => x.as_f64().map(Some),
        };
        let id = o.get("request_id")?.as_str()?.to_string();
        o.get("point")?.as_str()?;
        let warmup = o.get("warmup")?.as_bool()?;
        let st = o.get("status")?.as_str()?;
        ["ok", "error", "timeout", "cancelled"]
            .contains(&st)
            .then_some(())?;
        o.get("sent_at")?.as_f64()?;
        let first = nullable("first_token_at")?;
        nullable("finished_at")?;
        o.get("input_tokens")?.as_u64()?;
        let out = o.get("output_tokens")?.as_u64()?;
        Some((id, warmup, first, out))
    }

    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("\"r\"".to_string()),
            Just("\"ok\"".to_string()),
            Just("\"OK\"".to_string()),
            Just("1".to_string()),
            Just("1.5".to_string()),
            Just("-2".to_string()),
            Just("1e400".to_string()),
            Just("true".to_string()),
            Just("null".to_string()),
            Just("{\"a\":1,\"a\":2}".to_string()),
            Just("[{\"b\":{}}]".to_string()),
        ]
    }

    use proptest::prelude::*;

    proptest! {
        /// The one-pass reader accepts exactly the lines the reference reading
        /// (repeated keys refused over the document, then the fields)
        /// accepts, and reads the same fields from them.
        #[test]
        fn one_pass_reads_as_the_two_pass_reading(
            pairs in proptest::collection::vec(
                (prop_oneof![
                    (0..CLIENT_FIELDS.len()).prop_map(|i| CLIENT_FIELDS[i].to_string()),
                    Just("extra".to_string()),
                    Just("request\\u005fid".to_string()),
                ], value()),
                0..14,
            ),
            base in proptest::bool::ANY,
        ) {
            let mut fields: Vec<String> = Vec::new();
            if base {
                // Start from a whole record, so that most lines are records.
                let ok = &OK[1..OK.len() - 1];
                fields.push(ok.to_string());
            }
            fields.extend(pairs.iter().map(|(k, v)| format!("\"{k}\":{v}")));
            let line = format!("{{{}}}", fields.join(","));
            let got = serde_json::from_str::<ClientRecord>(&line)
                .ok()
                .map(|r| (r.request_id, r.warmup, r.first_token_at, r.output_tokens));
            prop_assert_eq!(got, reference(&line), "{}", line);
        }
    }
}
