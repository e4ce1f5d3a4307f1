'use strict';
// JS twin of CodeText in lib/embed/local/text.go (the Go test
// TestCodeTextMatchesScript keeps them equal): source code → the words a
// sentence encoder understands. Used to prepare the fit's declarations.

const KEYWORDS = new Set((
  'func return if else for range var const type struct interface package import ' +
  'nil err true false break continue switch case default go defer chan map select ' +
  'goto fallthrough def self class elif lambda none pass yield async await try ' +
  'except finally raise with let function this new null undefined void public private ' +
  'protected static final int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 ' +
  'float32 float64 string bool byte rune any error fn mut impl pub use mod ' +
  'enum match where unsafe extern typedef sizeof include define ifdef endif ' +
  'char long short double unsigned signed auto then end do done fi esac echo'
).split(/\s+/));

// splitIdent splits an identifier at underscores, lower→upper and
// acronym→word case changes and letter/digit boundaries.
function splitIdent(w) {
  return w
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[_\s]+/)
    .filter(Boolean);
}

function pushWords(words, src) {
  for (const raw of src.split(/[^\p{L}\p{N}_]+/u)) {
    if (!raw) continue;
    for (const w of splitIdent(raw)) {
      const lw = w.toLowerCase();
      if (!KEYWORDS.has(lw)) words.push(lw);
    }
  }
}

// codeText returns the path's words (extension dropped) and the code's
// identifier and comment words, split, lower-cased, keywords removed.
function codeText(path, text) {
  const words = [];
  if (path) {
    const dot = path.lastIndexOf('.');
    pushWords(words, dot > path.lastIndexOf('/') + 1 ? path.slice(0, dot) : path);
  }
  pushWords(words, text);
  return words.join(' ');
}

module.exports = { codeText, splitIdent, KEYWORDS };
