import { describe, expect, it } from 'vitest';
import { InputError } from '#core/errors.ts';
import { ProviderCallError } from '#providers/failures.ts';
import { BoundKey, keyAllowed, parseKeyHosts } from '#providers/key-hosts.ts';
import { boundKey, resolveOptions } from '#providers/options.ts';

describe('which hosts a key may go to', () => {
  it.each([
    ['OPENAI_API_KEY', 'https://api.openai.com/v1', true],
    ['OPENAI_API_KEY', 'https://API.OpenAI.com:443/v1', true],
    ['OPENAI_API_KEY', 'http://127.0.0.1:8000/v1', false],
    // The provider's own host over plain http: the key would cross the network in the clear.
    ['OPENAI_API_KEY', 'http://api.openai.com/v1', false],
    ['ANTHROPIC_API_KEY', 'http://api.anthropic.com', false],
    ['AZURE_OPENAI_API_KEY', 'http://my-resource.openai.azure.com/openai/v1', false],
    ['OPENAI_API_KEY', 'https://api.openai.com.evil.example/v1', false],
    ['OPENAI_API_KEY', 'https://evil.example/api.openai.com', false],
    ['GEMINI_API_KEY', 'https://generativelanguage.googleapis.com/v1beta/openai', true],
    ['GEMINI_API_KEY', 'https://api.openai.com/v1', false],
    ['ANTHROPIC_API_KEY', 'https://api.anthropic.com', true],
    ['AZURE_OPENAI_API_KEY', 'https://my-resource.openai.azure.com/openai/v1', true],
    ['AZURE_OPENAI_API_KEY', 'https://openai.azure.com', false],
    ['AZURE_OPENAI_API_KEY', 'https://my-resource.openai.azure.com.evil.example', false],
    ['MY_KEY', 'https://api.openai.com/v1', false],
  ])('%s to %s: %s', (variable, url, allowed) => {
    expect(keyAllowed(variable, url)).toBe(allowed);
  });

  it('adds the hosts a deployment names, exact or as *.suffix', () => {
    const extra = parseKeyHosts('OPENAI_API_KEY=llm.internal|*.corp.example, MY_KEY=gw.example');
    expect(extra).toEqual({ OPENAI_API_KEY: ['llm.internal', '*.corp.example'], MY_KEY: ['gw.example'] });
    expect(keyAllowed('OPENAI_API_KEY', 'http://llm.internal:8000/v1', extra)).toBe(true);
    expect(keyAllowed('OPENAI_API_KEY', 'https://a.b.corp.example/v1', extra)).toBe(true);
    expect(keyAllowed('OPENAI_API_KEY', 'https://corp.example/v1', extra)).toBe(false);
    expect(keyAllowed('OPENAI_API_KEY', 'https://api.openai.com/v1', extra)).toBe(true);
    expect(keyAllowed('MY_KEY', 'https://gw.example', extra)).toBe(true);
    expect(keyAllowed('ANTHROPIC_API_KEY', 'https://gw.example', extra)).toBe(false);
  });

  it.each([['OPENAI_API_KEY'], ['OPENAI_API_KEY=https://x.example'], ['OPENAI_API_KEY=x.example:8000'], ['1KEY=x.example'], ['OPENAI_API_KEY=']])(
    'refuses the malformed entry %j, naming it',
    (text) => {
      expect(() => parseKeyHosts(text)).toThrow(/is not/);
    },
  );
});

describe('a bound key', () => {
  const cloud = { mode: 'refuse' as const, extra: parseKeyHosts('OPENAI_API_KEY=llm.internal') };

  it('refuses, in the cloud, a base URL the key is not for when the provider is built — key set or not', () => {
    for (const env of [{ OPENAI_API_KEY: 'sk-1' }, {}]) {
      const opts = resolveOptions({ env, keyHosts: cloud });
      expect(() => boundKey(opts, 'OPENAI_API_KEY', 'http://attacker.example/v1')).toThrow(InputError);
      expect(() => boundKey(opts, 'OPENAI_API_KEY', 'http://attacker.example/v1')).toThrow(
        /OPENAI_API_KEY is not sent to attacker\.example.*-c providerKeyHosts=OPENAI_API_KEY=attacker\.example/,
      );
      expect(() => boundKey(opts, 'OPENAI_API_KEY', 'http://llm.internal/v1')).not.toThrow();
    }
  });

  it("refuses, in the cloud, the provider's own host over plain http, saying to use https", () => {
    const opts = resolveOptions({ env: { OPENAI_API_KEY: 'sk-1' }, keyHosts: cloud });
    expect(() => boundKey(opts, 'OPENAI_API_KEY', 'http://api.openai.com/v1')).toThrow(
      /OPENAI_API_KEY is not sent to api\.openai\.com over plain http.*https:\/\/api\.openai\.com/,
    );
    const key = new BoundKey('OPENAI_API_KEY', 'sk-1', cloud, false, () => undefined);
    expect(() => key.for('http://api.openai.com/v1/chat/completions')).toThrow(ProviderCallError);
    expect(key.for('https://api.openai.com/v1/chat/completions')).toBe('sk-1');
  });

  it('warns, on this machine, when the key goes to its own host over plain http', () => {
    const warnings: string[] = [];
    const local = resolveOptions({ env: { OPENAI_API_KEY: 'sk-1' }, warn: (m: string): void => void warnings.push(m) });
    expect(boundKey(local, 'OPENAI_API_KEY', 'http://api.openai.com/v1').for('http://api.openai.com/v1/chat/completions')).toBe('sk-1');
    expect(warnings).toEqual([expect.stringMatching(/sending OPENAI_API_KEY to api\.openai\.com over plain http.*https:\/\//)]);
  });

  it('warns about plain http even when the variable is named with --api-key-env (naming confirms the host, not the clear text)', () => {
    const warnings: string[] = [];
    const key = new BoundKey('ANTHROPIC_API_KEY', 'sk-ant-1', { mode: 'warn' }, true, (m) => void warnings.push(m));
    expect(key.for('http://api.anthropic.com/v1/messages')).toBe('sk-ant-1');
    expect(key.for('http://api.anthropic.com/v1/messages')).toBe('sk-ant-1');
    expect(warnings).toEqual([expect.stringMatching(/sending ANTHROPIC_API_KEY to api\.anthropic\.com over plain http/)]);
  });

  it('never hands the key out for a call to another host in the cloud (a non-retryable failure)', () => {
    const key = new BoundKey('OPENAI_API_KEY', 'sk-1', cloud, false, () => undefined);
    expect(key.for('http://llm.internal/v1/chat/completions')).toBe('sk-1');
    expect(() => key.for('http://attacker.example/v1/chat/completions')).toThrow(ProviderCallError);
    try {
      key.for('http://attacker.example/v1/chat/completions');
    } catch (error) {
      expect((error as ProviderCallError).retryable).toBe(false);
    }
  });

  it('on this machine sends the key to another host with one warning per key and host, none when the variable was named', () => {
    const warnings: string[] = [];
    const warn = (m: string): void => void warnings.push(m);
    const local = resolveOptions({ env: { OPENAI_API_KEY: 'sk-1' }, warn });
    const key = boundKey(local, 'OPENAI_API_KEY', 'http://unit-test-host.example/v1');
    expect(key.for('http://unit-test-host.example/v1/completions')).toBe('sk-1');
    expect(key.for('http://unit-test-host.example/v1/chat/completions')).toBe('sk-1');
    expect(key.for('https://api.openai.com/v1/completions')).toBe('sk-1');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/sending OPENAI_API_KEY to unit-test-host\.example, which is not its provider's API host \(api\.openai\.com\).*--api-key-env/);

    const named = resolveOptions({ env: { OPENAI_API_KEY: 'sk-1' }, apiKeyEnv: 'OPENAI_API_KEY', warn });
    expect(boundKey(named, 'OPENAI_API_KEY', 'http://named-host.example/v1').for('http://named-host.example/v1/completions')).toBe('sk-1');
    expect(warnings).toHaveLength(1);
  });
});
