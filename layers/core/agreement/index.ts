/** Agreement of polyeval's verdicts with another harness's result files (`polyeval agree`). */
export { agreement, type AgreementReport, type AgreementSlice, type Disagreement } from './agreement.ts';
export { parseReferenceVerdicts, type ReferenceVerdict } from './reference-verdicts.ts';
export { errorLine } from './error-line.ts';
