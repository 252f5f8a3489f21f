/**
 * The bundled ABRICOT sample's gold, as the fake models of the provider tests prefer it: the
 * digit of the open (last) question of a prompt, by the `paper` protocol's rule — the ABRICOT
 * authors' (layers/core/benchmarks/likert-gold.ts), so no test restates it by hand and drifts
 * when the rule changes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { calamitaGold } from '#core/benchmarks/likert-gold.ts';
import { packageRoot } from '#app/local/home.ts';

interface Item {
  text: string;
  abs_mean: number;
  inc_mean: number;
}

let items: Item[] | undefined;

/** The gold digit of the last question in a (few-shot) ABRICOT prompt of `sample/abricot`, either subtask; "1" when the sentence is not one of its items. */
export function sampleGoldDigit(context: string): string {
  items ??= readFileSync(join(packageRoot(), 'sample/abricot/items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Item);
  const question = context.slice(context.lastIndexOf('Assegna un valore di '));
  const sentence = /frase seguente:\s(.*?)\sDescrizione dei valori:/s.exec(question)?.[1] ?? '';
  const item = items.find((i) => i.text === sentence);
  if (!item) return '1';
  return String(calamitaGold(question.startsWith('Assegna un valore di astrazione') ? item.abs_mean : item.inc_mean));
}
