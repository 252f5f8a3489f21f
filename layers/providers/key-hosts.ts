/**
 * Where an API key may go. A key read from an environment variable is sent only to the hosts
 * it is for: the provider's own API host ({@link PROVIDER_KEY_HOSTS}), plus the hosts a
 * deployment names for it (`-c providerKeyHosts=OPENAI_API_KEY=llm.internal|*.corp.example`,
 * handed to the functions as PROVIDER_KEY_HOSTS). A provider checks its base URL when it is
 * built (so the cloud's plan refuses the run before any call) and each call's URL again
 * before it attaches the key (so no code path sends it elsewhere).
 *
 * Two modes: `refuse` (the deployed functions: the key belongs to the deployment, the run to
 * whoever may start one) and `warn` (this machine: the key is the user's own, sent with a
 * warning once per key and host, and silently when the user named the variable with
 * `--api-key-env`).
 */
import { InputError } from '#core/errors.ts';
import { ProviderCallError } from './failures.ts';

/** A variable's allowed hosts: exact names, or `*.<suffix>` for any name under the suffix. */
export type KeyHosts = Readonly<Record<string, readonly string[]>>;

/**
 * Each provider's key variable and its API's own hosts (the hosts its documentation gives):
 * OpenAI https://api.openai.com/v1; Anthropic https://api.anthropic.com; Gemini's
 * OpenAI-compatible endpoint https://generativelanguage.googleapis.com/v1beta/openai; an Azure
 * OpenAI resource `https://<resource>.openai.azure.com` (Azure AI Foundry resources:
 * `<resource>.cognitiveservices.azure.com`, `<resource>.services.ai.azure.com`).
 * Any other variable (a run's `--api-key-env` name) has no host until a deployment names one.
 */
export const PROVIDER_KEY_HOSTS: KeyHosts = {
  OPENAI_API_KEY: ['api.openai.com'],
  ANTHROPIC_API_KEY: ['api.anthropic.com'],
  GEMINI_API_KEY: ['generativelanguage.googleapis.com'],
  AZURE_OPENAI_API_KEY: ['*.openai.azure.com', '*.cognitiveservices.azure.com', '*.services.ai.azure.com'],
  // Mistral's API: https://api.mistral.ai (mistralai/client-python sdkconfiguration.py SERVERS).
  MISTRAL_API_KEY: ['api.mistral.ai'],
};

/** The context key that names more hosts (in the refusal's advice). */
export const KEY_HOSTS_CONTEXT = 'providerKeyHosts';

/** How keys are bound in this process. */
export interface KeyHostRule {
  mode: 'refuse' | 'warn';
  /** Hosts named at deploy, per variable, beside the table's. */
  extra?: KeyHosts;
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/**
 * Parses `KEY=host1|host2,KEY2=host3` (empty: none). Hosts are names without scheme or port,
 * lower-cased; `*.example.com` allows every name under example.com (not example.com itself).
 * @throws Error naming the entry that is malformed.
 */
export function parseKeyHosts(text: string | undefined): KeyHosts {
  const out: Record<string, string[]> = {};
  for (const entry of (text ?? '').split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    const variable = eq < 0 ? entry : entry.slice(0, eq).trim();
    if (eq < 0 || !VARIABLE.test(variable)) throw new Error(`"${entry}" is not <KEY>=<host>[|<host>…] (e.g. OPENAI_API_KEY=llm.internal|*.corp.example)`);
    const hosts = entry
      .slice(eq + 1)
      .split('|')
      .map((h) => h.trim().toLowerCase());
    for (const host of hosts)
      if (!HOST.test(host))
        throw new Error(`"${host}" (for ${variable}) is not a host name: give names without scheme, port or path, e.g. llm.internal or *.corp.example`);
    out[variable] = [...(out[variable] ?? []), ...hosts];
  }
  return out;
}

/** Whether `host` matches `pattern` (exact, or `*.suffix` for a name strictly under the suffix). */
function matches(pattern: string, host: string): boolean {
  return pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1 : host === pattern;
}

/** The hosts `variable` may go to: the table's and the deployment's. */
export function hostsOf(variable: string, extra: KeyHosts = {}): string[] {
  return [...(PROVIDER_KEY_HOSTS[variable] ?? []), ...(extra[variable] ?? [])];
}

/**
 * Whether the key in `variable` may be sent to `url`. A provider's own API host takes it over
 * https only (every one of them serves https; over http the key would cross the network in
 * the clear before any redirect). A host the deployment named takes it over either scheme:
 * the deployer chose it (an endpoint inside their network may serve plain http).
 * @example keyAllowed('OPENAI_API_KEY', 'https://api.openai.com/v1') // true
 * @example keyAllowed('OPENAI_API_KEY', 'http://api.openai.com/v1') // false
 * @example keyAllowed('OPENAI_API_KEY', 'http://127.0.0.1:8000/v1') // false
 */
export function keyAllowed(variable: string, url: string, extra: KeyHosts = {}): boolean {
  const host = hostOf(url);
  const secure = new URL(url).protocol === 'https:';
  return (
    (secure && (PROVIDER_KEY_HOSTS[variable] ?? []).some((pattern) => matches(pattern, host))) ||
    (extra[variable] ?? []).some((pattern) => matches(pattern, host))
  );
}

/** Whether `url` names one of the provider's own hosts over plain http (said in the refusal). */
function plainHttpToOwnHost(variable: string, url: string): boolean {
  return new URL(url).protocol !== 'https:' && (PROVIDER_KEY_HOSTS[variable] ?? []).some((pattern) => matches(pattern, hostOf(url)));
}

function hostOf(url: string): string {
  return new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
}

/** Why `variable` is not sent to `url`, with what allows it. */
export function keyRefusal(variable: string, url: string, extra: KeyHosts = {}): string {
  const host = hostOf(url);
  const hosts = hostsOf(variable, extra);
  if (plainHttpToOwnHost(variable, url))
    return `${variable} is not sent to ${host} over plain http: its provider's API takes the key over https only (give the base URL as https://${host}…)`;
  return (
    `${variable} is not sent to ${host}: a deployment sends a stored key only to its provider's own API host and the hosts named at deploy ` +
    `(${variable}'s: ${hosts.length > 0 ? hosts.join(', ') : 'none'}); to allow this one, deploy with -c ${KEY_HOSTS_CONTEXT}=${variable}=${host} ` +
    `(docs/aws.md, "Provider API keys")`
  );
}

/** Keys already warned about in this process, as `<variable>@<host>`. */
const warned = new Set<string>();

/**
 * A key and the rule for where it goes. Built by a provider from its options; `check` when the
 * provider is built, `for` before each call.
 */
export class BoundKey {
  constructor(
    readonly variable: string,
    readonly value: string | undefined,
    private readonly rule: KeyHostRule,
    /** The user named the variable (`--api-key-env`): no warning on this machine. */
    private readonly named: boolean,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * Refuses, in `refuse` mode, a base URL the key may not go to — whether or not the key is
   * set here (the cloud's plan does not read keys: it refuses what generate would send).
   * @throws InputError naming the key, the host and the context key that allows it.
   */
  check(url: string): void {
    if (this.rule.mode === 'refuse' && !keyAllowed(this.variable, url, this.rule.extra))
      throw new InputError(keyRefusal(this.variable, url, this.rule.extra), { field: 'model' });
  }

  /**
   * The key for a call to `url`, or undefined when there is none. On this machine a host not
   * the key's gets it with a warning (once per key and host); in the cloud it never does.
   * @throws ProviderCallError (not retried) when the cloud's rule forbids `url`.
   */
  for(url: string): string | undefined {
    if (this.value === undefined || this.value === '') return undefined;
    if (keyAllowed(this.variable, url, this.rule.extra)) return this.value;
    if (this.rule.mode === 'refuse') throw new ProviderCallError(keyRefusal(this.variable, url, this.rule.extra), { retryable: false });
    const once = `${this.variable}@${hostOf(url)}`;
    // Naming the variable confirms the host, not the clear text: plain http is warned about either way.
    const plain = plainHttpToOwnHost(this.variable, url);
    if ((plain || !this.named) && !warned.has(once)) {
      warned.add(once);
      this.warn(
        plain
          ? `warning: sending ${this.variable} to ${hostOf(url)} over plain http, where anyone on the path can read it; use https://`
          : `warning: sending ${this.variable} to ${hostOf(url)}, which is not its provider's API host (${hostsOf(this.variable).join(', ') || 'none'}); ` +
              `name the variable with --api-key-env to confirm (and silence this), or unset it for a server that needs no key`,
      );
    }
    return this.value;
  }
}
