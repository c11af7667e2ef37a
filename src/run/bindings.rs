//! The parts of `qualification.json` that speak of the write-up: the run's
//! files by role (`roles`, for the inventory sentence) and the statements
//! the publisher binds to evidence (`statements`). Both are the
//! publisher's: a role's globs and a binding's file and pointer are chosen
//! by whoever wrote the run, and every check that uses them says so.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The closed set of checks a publisher may bind a statement to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BindingCheck {
    /// The JSON value at `pointer` of `file` equals `value` (a string or a
    /// number).
    Equals,
    /// The numbers at `pointer` of `file` have the least `min` and the
    /// greatest `max`, at the precision written.
    Range,
    /// The median of the numbers at `pointer` of `file` is `value`, at the
    /// precision written.
    Median,
    /// Every object of the array at `pointer` of `file` has `"ok": true`
    /// (and there is at least one).
    AllPassed,
    /// The array at `pointer` of `file` has `value` items.
    Count,
    /// `file` is a file of the run.
    Present,
    /// The JSON difference of `against` and `file` is exactly `paths`.
    JsonDiffOnly,
}

impl BindingCheck {
    /// Its spelling in `qualification.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            BindingCheck::Equals => "equals",
            BindingCheck::Range => "range",
            BindingCheck::Median => "median",
            BindingCheck::AllPassed => "all-passed",
            BindingCheck::Count => "count",
            BindingCheck::Present => "present",
            BindingCheck::JsonDiffOnly => "json-diff-only",
        }
    }
}

/// One statement the publisher binds (`statements`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatementBinding {
    /// The sentence or clause as published; it must occur exactly once in
    /// the rendered write-up (white space runs as one space).
    pub text: String,
    /// What it is checked by.
    pub check: BindingCheck,
    /// The file of the run the check reads.
    #[serde(default)]
    pub file: Option<String>,
    /// A JSON pointer (RFC 6901) into `file`.
    #[serde(default)]
    pub pointer: Option<String>,
    /// The stated value (`equals`: a string or number; `median`: a
    /// decimal as a string; `count`: an integer).
    #[serde(default)]
    pub value: Option<serde_json::Value>,
    /// `range`: the least value as written.
    #[serde(default)]
    pub min: Option<String>,
    /// `range`: the greatest value as written.
    #[serde(default)]
    pub max: Option<String>,
    /// `json-diff-only`: the file `file` was derived from.
    #[serde(default)]
    pub against: Option<String>,
    /// `json-diff-only`: the key paths (`a.b`, `a[2]`) that differ.
    #[serde(default)]
    pub paths: Option<Vec<String>>,
}

impl StatementBinding {
    /// The files it names (to be checked as run paths).
    pub fn files(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [("file", &self.file), ("against", &self.against)]
            .into_iter()
            .filter_map(|(k, v)| v.as_deref().map(|v| (k, v)))
    }

    /// Its arguments are the ones its check takes, each of the right kind;
    /// `Err` names what is missing or extra.
    pub fn arguments_fit(&self) -> Result<(), String> {
        let decimal = |v: &Option<String>, k: &str| match v {
            Some(s) if crate::publication::Decimal::parse(s).is_some() => Ok(()),
            Some(s) => Err(format!("{k} {s:?} is not a number as written")),
            None => Err(format!("needs {k}")),
        };
        let has = [
            ("file", self.file.is_some()),
            ("pointer", self.pointer.is_some()),
            ("value", self.value.is_some()),
            ("min", self.min.is_some()),
            ("max", self.max.is_some()),
            ("against", self.against.is_some()),
            ("paths", self.paths.is_some()),
        ];
        let wants: &[&str] = match self.check {
            BindingCheck::Equals | BindingCheck::Median | BindingCheck::Count => {
                &["file", "pointer", "value"]
            }
            BindingCheck::Range => &["file", "pointer", "min", "max"],
            BindingCheck::AllPassed => &["file", "pointer"],
            BindingCheck::Present => &["file"],
            BindingCheck::JsonDiffOnly => &["file", "against", "paths"],
        };
        for (k, present) in has {
            match (wants.contains(&k), present) {
                (true, false) => return Err(format!("needs {k}")),
                (false, true) => return Err(format!("takes no {k}")),
                _ => {}
            }
        }
        if let Some(p) = &self.pointer {
            if !(p.is_empty() || p.starts_with('/')) {
                return Err(format!(
                    "pointer {p:?} is not a JSON pointer (it starts with /)"
                ));
            }
        }
        match (self.check, &self.value) {
            (BindingCheck::Equals, Some(v)) if !(v.is_string() || v.is_number()) => {
                Err("value must be a string or a number".into())
            }
            (BindingCheck::Median, Some(v)) => decimal(
                &v.as_str().map(str::to_string),
                "value (a decimal as a string)",
            ),
            (BindingCheck::Count, Some(v)) if v.as_u64().is_none() => {
                Err("value must be a non-negative integer".into())
            }
            (BindingCheck::Range, _) => {
                decimal(&self.min, "min")?;
                decimal(&self.max, "max")
            }
            _ => Ok(()),
        }
    }
}

/// `roles`: every role names at least one glob, and every glob compiles.
pub fn roles_fit(roles: &BTreeMap<String, Vec<String>>) -> Result<(), String> {
    for (role, globs) in roles {
        if role.trim().is_empty() {
            return Err("roles: a role with an empty name".into());
        }
        if globs.is_empty() {
            return Err(format!("roles: {role:?} lists no path glob"));
        }
        for g in globs {
            globset::Glob::new(g)
                .map_err(|e| format!("roles: {role:?}: {g:?} is not a glob: {e}"))?;
        }
    }
    Ok(())
}
