import { describe, expect, it } from 'vitest';
import { KOTLIN_RECIPE, KOTLIN_STOP_SEQUENCES } from '../../../layers/core/prompts/kotlin.ts';
import { truncateAtStop } from '../../../layers/core/benchmarks/postprocess.ts';

describe('Kotlin HumanEval recipe', () => {
  it("decodes greedily with the card's stop sequence and token budget", () => {
    expect(KOTLIN_RECIPE.temperature).toBe(0);
    expect(KOTLIN_STOP_SEQUENCES).toContain('}\n}');
    expect(KOTLIN_RECIPE.maxTokens).toBe(256);
  });

  it.each([
    ['a function ending in a block', '    if (x > 0) {\n        return x\n    }\n}\n\nfun main() {}', '    if (x > 0) {\n        return x\n    }\n}'],
    ['a function ending in a statement', '    return 2 * x\n}\n\nfun main() {\n    println(1)\n}\n', '    return 2 * x\n}\n'],
  ])('stops after the closing brace of %s', (_label, generated, expected) => {
    expect(truncateAtStop(generated, KOTLIN_STOP_SEQUENCES)).toBe(expected);
  });
});
