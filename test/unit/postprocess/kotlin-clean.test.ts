import { describe, expect, it } from 'vitest';
import { cleanKotlinCompletion, stripKotlinComments } from '../../../layers/core/languages/kotlin-lexical.ts';

describe('stripKotlinComments', () => {
  it('removes line and block comments', () => {
    expect(stripKotlinComments('val a = 1 // unu\nval b = /* doi */ 2\n')).toBe('val a = 1 \nval b =   2\n');
  });

  it('keeps // and /* inside string, raw-string and char literals', () => {
    const code = 'val url = "http://x.ro/*a*/"\nval raw = """C:\\\\ // nu e comentariu"""\nval c = \'/\'\n';
    expect(stripKotlinComments(code)).toBe(code);
  });

  it('keeps string templates and strings nested in them', () => {
    const code = 'val s = "${m["//k"]} ${ if (a) "}" else "{" }" // gone\n';
    expect(stripKotlinComments(code)).toBe('val s = "${m["//k"]} ${ if (a) "}" else "{" }" \n');
  });

  it('removes nested block comments and keeps the lines they spanned', () => {
    expect(stripKotlinComments('a /* x /* y */ z\n */ b')).toBe('a \n b');
  });

  it('keeps an escaped quote inside a string', () => {
    const code = 'val q = "\\"//"\n';
    expect(stripKotlinComments(code)).toBe(code);
  });
});

describe('cleanKotlinCompletion', () => {
  it('drops a repeated signature and keeps the body after it', () => {
    const answer = 'fun twice(x: Int): Int {\n    return 2 * x\n}\n';
    expect(cleanKotlinCompletion(answer)).toBe('    return 2 * x\n}\n');
  });

  it('drops a repeated KDoc and signature spread over several lines', () => {
    const answer = '/**\n * Twice.\n */\nfun twice(\n    x: Int,\n): Int {\n    return 2 * x\n}\n';
    expect(cleanKotlinCompletion(answer)).toBe('    return 2 * x\n}\n');
  });

  it('keeps a body that declares a helper function after it', () => {
    const answer = '    return helper(x)\n}\n\nfun helper(y: Int): Int {\n    return y\n}\n';
    expect(cleanKotlinCompletion(answer)).toBe(answer);
  });

  it('removes comment-only lines and trailing comments but not // inside strings', () => {
    const answer = '    // build the answer\n    val sep = "//"\n    return sep + x // joined\n}\n';
    expect(cleanKotlinCompletion(answer)).toBe('    val sep = "//"\n    return sep + x \n}\n');
  });
});
