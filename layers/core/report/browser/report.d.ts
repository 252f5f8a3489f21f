// `report.js` is a browser script the report embeds as text (a text import, see
// `../browser-script.ts`): to TypeScript, its default export is that text.
declare const text: string;
export default text;
