'use strict';
// Mirror of lib/embed/local CodeText (Go) for the quick evaluation: turns
// source code into words a sentence encoder understands.

const KEYWORDS = new Set((
  'func return if else for range var const type struct interface package import ' +
  'nil err true false break continue switch case default go defer chan map select ' +
  'goto fallthrough def self class elif lambda none pass yield async await try ' +
  'except finally raise with let function this new null undefined void public private ' +
  'protected static final int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 ' +
  'float32 float64 string bool byte rune any error fn mut impl pub use mod struct ' +
  'enum match where unsafe extern typedef sizeof include define ifdef endif ' +
  'char long short double unsigned signed auto then end do done fi esac echo'
).split(/\s+/));

function splitIdent(w) {
  return w
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2')
    .split(/[_\s]+/)
    .filter(Boolean);
}

function codeText(path, text, o = {}) {
  const words = [];
  const push = (src, fromPath) => {
    for (const raw of src.split(/[^\p{L}\p{N}_]+/u)) {
      if (!raw) continue;
      for (let w of splitIdent(raw)) {
        if (o.lower !== false) w = w.toLowerCase();
        if (o.stop !== false && KEYWORDS.has(w.toLowerCase())) continue;
        if (o.minLen && w.length < o.minLen) continue;
        if (o.digits === false && /^\p{N}+$/u.test(w)) continue;
        words.push(w);
      }
    }
  };
  if (path && o.path !== false) push(path.replace(/\.[^./]*$/, ''), true);
  push(text, false);
  return words.join(' ');
}

module.exports = { codeText, splitIdent, KEYWORDS };
