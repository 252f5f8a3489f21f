// Types for the parts of `nspell` (no published typings) that the lexicon uses.
declare module 'nspell' {
  interface NSpell {
    correct(word: string): boolean;
    /** Every word form the dictionary accepts (stems with their affixes applied). */
    data: Record<string, unknown>;
  }
  function nspell(dictionary: { aff: Uint8Array | string; dic?: Uint8Array | string }): NSpell;
  export default nspell;
}
