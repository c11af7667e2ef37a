//! What a reader sees of a character, by the Unicode Character Database
//! (ICU4X's compiled properties, not a hand list): the characters a
//! renderer draws as nothing, and the decimal digits of every script,
//! which a reader reads as the digits they are.

use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory};
use icu_properties::{CodePointMapData, CodePointSetData};

/// A character a renderer draws as nothing or that reorders the text
/// around it: Unicode general category Cf (format) or the
/// Default_Ignorable_Code_Point property (which also covers the unassigned
/// code points reserved for future invisible characters, such as U+2065
/// and U+FFF0..U+FFF8). Variation selectors are not counted here: they
/// only pick how the character before them is drawn ([`is_variation_selector`]).
pub fn is_invisible(c: char) -> bool {
    if is_variation_selector(c) {
        return false;
    }
    CodePointMapData::<GeneralCategory>::new().get(c) == GeneralCategory::Format
        || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
}

/// U+FE00..U+FE0F and U+E0100..U+E01EF: they choose the glyph (text or
/// emoji presentation) of the character before them.
pub fn is_variation_selector(c: char) -> bool {
    matches!(c as u32, 0xFE00..=0xFE0F | 0xE0100..=0xE01EF)
}

/// The value of a decimal digit of any script (general category Nd:
/// ASCII, full-width, Arabic-Indic, Devanagari, the mathematical digits
/// ...), or `None`. Unicode assigns such digits only in contiguous runs of
/// ten, 0 to 9, so a digit's value is its distance from the start of its
/// run of Nd characters, modulo ten.
pub fn digit_value(c: char) -> Option<u32> {
    if c.is_ascii_digit() {
        return Some(c as u32 - '0' as u32);
    }
    let gc = CodePointMapData::<GeneralCategory>::new();
    if gc.get(c) != GeneralCategory::DecimalNumber {
        return None;
    }
    let mut start = c as u32;
    while let Some(p) = start.checked_sub(1).and_then(char::from_u32) {
        if gc.get(p) != GeneralCategory::DecimalNumber {
            break;
        }
        start -= 1;
    }
    Some((c as u32 - start) % 10)
}

/// The character as a reader reads it: a decimal digit of any script as
/// its ASCII digit, anything else as itself.
pub fn as_read(c: char) -> char {
    match digit_value(c) {
        Some(d) if !c.is_ascii_digit() => char::from_digit(d, 10).unwrap_or(c),
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_of_every_script_read_as_ascii() {
        let read = |s: &str| s.chars().map(as_read).collect::<String>();
        assert_eq!(read("𝟷𝟶𝟽.𝟶"), "107.0");
        assert_eq!(read("１０７"), "107");
        assert_eq!(read("٣٤٥"), "345");
        assert_eq!(read("३४५"), "345");
        assert_eq!(read("𝟎𝟗𝟘𝟡"), "0909");
        assert_eq!(read("²①x"), "²①x", "not decimal digits");
    }

    #[test]
    fn invisible_by_property_not_by_list() {
        for c in [
            '\u{200B}',
            '\u{2065}',
            '\u{FFF0}',
            '\u{FFF8}',
            '\u{E0001}',
            '\u{034F}',
            '\u{00AD}',
        ] {
            assert!(is_invisible(c), "U+{:04X}", c as u32);
        }
        for c in ['a', ' ', '\u{FE0F}', 'é', '1'] {
            assert!(!is_invisible(c), "U+{:04X}", c as u32);
        }
    }
}
