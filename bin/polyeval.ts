import { x } from "#core/zz.ts"; console.log(x);
