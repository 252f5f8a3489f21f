/**
 * The bytes a token string stands for, in every form servers report tokens: decoded text
 * (vLLM's `decoded_token`, TGI, llama.cpp), GPT-2 byte-level strings (`Ġ` for a space, `Ċ`
 * for a newline: what `convert_ids_to_tokens` gives for Llama 3, Qwen, GPT-2), SentencePiece
 * pieces (`▁` for a space, `<0x0A>` byte tokens: Llama 2, Mistral, Gemma) and vLLM's
 * `bytes:\xe2\x80` form for tokens that are not whole characters. Special tokens (`<s>`,
 * `<|begin_of_text|>`, `<bos>`) stand for no text: null.
 */

/** GPT-2's byte → printable character table, inverted: character → byte. */
const BYTE_LEVEL = ((): Map<string, number> => {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const map = new Map<string, number>();
  for (const b of printable) map.set(String.fromCodePoint(b), b);
  let next = 0;
  for (let b = 0; b < 256; b++) {
    if (printable.includes(b)) continue;
    map.set(String.fromCodePoint(256 + next), b);
    next += 1;
  }
  return map;
})();

const SPECIAL = /^(<\|[^|<>]+\|>|<\/?s>|<(bos|eos|pad|unk|start_of_turn|end_of_turn)>|\[(INST|\/INST|BOS|EOS)\])$/;
const SP_BYTE = /^<0x([0-9A-Fa-f]{2})>$/;
const encoder = new TextEncoder();

/** Whether a token is a special token that stands for no text (BOS, EOS, chat markers). */
export function isSpecialToken(token: string): boolean {
  return SPECIAL.test(token);
}

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * The bytes a token stands for; null for a special token. Byte-level and SentencePiece
 * markers are decoded only when the whole token is in that alphabet, so a decoded token
 * that merely contains "Ġ" is taken literally.
 */
export function tokenBytes(token: string): Uint8Array | null {
  if (isSpecialToken(token)) return null;
  const spByte = SP_BYTE.exec(token);
  if (spByte?.[1]) return Uint8Array.of(parseInt(spByte[1], 16));
  if (token.startsWith('bytes:')) return escapedBytes(token.slice('bytes:'.length));
  if (token.includes('▁')) return utf8(token.replaceAll('▁', ' '));
  if (/[\u0100-\u0143]/u.test(token)) {
    const bytes: number[] = [];
    for (const ch of token) {
      const b = BYTE_LEVEL.get(ch);
      if (b === undefined) return utf8(token);
      bytes.push(b);
    }
    return Uint8Array.from(bytes);
  }
  return utf8(token);
}

/** `\xe2\x80` → bytes; anything else in the string as UTF-8. */
function escapedBytes(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length;) {
    const m = /^\\x([0-9a-fA-F]{2})/.exec(text.slice(i));
    if (m?.[1]) {
      out.push(parseInt(m[1], 16));
      i += 4;
    } else {
      const ch = String.fromCodePoint(text.codePointAt(i) ?? 0);
      out.push(...utf8(ch));
      i += ch.length;
    }
  }
  return Uint8Array.from(out);
}
