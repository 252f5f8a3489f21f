/**
 * A fake Azure OpenAI resource: Azure's URLs, key header and error bodies in front of the
 * fake OpenAI API (flavour `openai-chat`: Azure serves OpenAI's models with OpenAI's
 * response shapes, logprobs and refusals included). What is Azure's own, with where it is read:
 *
 * - `POST /openai/v1/chat/completions`, the deployment in the body's `model`, no api-version
 *   (Microsoft Learn, "Azure OpenAI API version lifecycle": the v1 API, GA from August 2025).
 * - `POST /openai/deployments/{deployment}/chat/completions?api-version=…` (Azure OpenAI REST
 *   reference, "Chat completions": `deployment-id` in the path, `api-version` required in the query);
 *   `/completions` beside it answers 400 `OperationNotSupported` for a chat model
 *   ("The completion operation does not work with the specified model").
 * - The key in the `api-key` header; a wrong or missing one is 401 with Azure's message
 *   "Access denied due to invalid subscription key or wrong API endpoint…".
 * - An unknown deployment is 404 `DeploymentNotFound` ("The API deployment for this resource
 *   does not exist. If you created the deployment within the last 5 minutes, please wait a
 *   moment and try again.", as quoted in MicrosoftDocs/azure-docs#114013 and
 *   Azure-Samples/azure-search-openai-demo-csharp#379).
 * - Content filtering (Microsoft Learn, "Content filtering" / "Azure OpenAI in Azure AI
 *   Foundry Models content filtering", its response scenarios): a prompt classified at a
 *   filtered category fails the call with HTTP 400, `error.code: "content_filter"`, `param:
 *   "prompt"` and `innererror.code: "ResponsibleAIPolicyViolation"` with the
 *   `content_filter_result` per category; a filtered completion is a 200 whose choice has
 *   `finish_reason: "content_filter"` and no content ("non-streaming calls return no content"),
 *   with its `content_filter_results`.
 * - Completions deployments (`completionDeployments`: gpt-35-turbo-instruct, davinci-002) answer
 *   `/completions` on the dated route with `echo` and `logprobs` (Azure OpenAI REST reference,
 *   data plane 2024-10-21, "Completions - Create": `echo`, `logprobs`), behind the same key and
 *   content filter (the prompt filter tests `prompt`); the answers come from a vLLM-shaped fake.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { startOpenAiServer, type OpenAiServerOptions } from './openai-server.ts';

export interface AzureOpenAiServerOptions extends Pick<OpenAiServerOptions, 'answer' | 'logprob' | 'refuse'> {
  /** The resource's key (the `api-key` header). */
  apiKey: string;
  /** Deployment name → the OpenAI model it serves. */
  deployments: Record<string, string>;
  /** Deployment name → the completions model it serves (`/completions` with echo; see above). */
  completionDeployments?: Record<string, string>;
  /** The deployment's content filter: prompts (any message) and answers it filters. */
  filter?: { prompt?: RegExp; completion?: RegExp };
}

export interface AzureRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export interface AzureOpenAiServer {
  /** The resource endpoint, e.g. http://127.0.0.1:41234 (stands for https://<resource>.openai.azure.com). */
  url: string;
  requests: AzureRequest[];
  close(): Promise<void>;
}

/** A `content_filter_result(s)` object as the content-filtering page shows it, violence filtered. */
const FILTERED_VIOLENCE = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: true, severity: 'medium' },
};

const DEPLOYMENT_ROUTE = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|completions)$/;

export async function startAzureOpenAiServer(options: AzureOpenAiServerOptions): Promise<AzureOpenAiServer> {
  const { answer, logprob, refuse } = options;
  const inner = await startOpenAiServer({
    flavour: 'openai-chat',
    ...(answer ? { answer } : {}),
    ...(logprob ? { logprob } : {}),
    ...(refuse ? { refuse } : {}),
  });
  const legacy = options.completionDeployments
    ? await startOpenAiServer({ flavour: 'vllm', ...(answer ? { answer } : {}), ...(logprob ? { logprob } : {}) })
    : undefined;
  const requests: AzureRequest[] = [];
  const sockets = new Set<Socket>();
  const error = (res: ServerResponse, status: number, code: string, message: string): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code, message } }));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ method: req.method ?? '', path: `${url.pathname}${url.search}`, headers: req.headers, body });
    if (req.headers['api-key'] !== options.apiKey) {
      return error(
        res,
        401,
        '401',
        'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
      );
    }
    let deployment: string;
    let operation: string;
    const dated = DEPLOYMENT_ROUTE.exec(url.pathname);
    if (dated) {
      deployment = decodeURIComponent(dated[1] ?? '');
      operation = dated[2] ?? '';
    } else if (url.pathname === '/openai/v1/chat/completions') {
      deployment = String(body.model ?? '');
      operation = 'chat/completions';
    } else return error(res, 404, '404', `no route ${url.pathname} in this fake`);
    const completionModel = options.completionDeployments?.[deployment];
    const model = options.deployments[deployment] ?? completionModel;
    if (model === undefined) {
      return error(
        res,
        404,
        'DeploymentNotFound',
        'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
      );
    }
    if (operation === 'completions' && completionModel === undefined)
      return error(res, 400, 'OperationNotSupported', 'The completion operation does not work with the specified model, ' + model + '.');
    const promptText = JSON.stringify(body.messages ?? body.prompt ?? '');
    if (options.filter?.prompt?.test(promptText)) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: {
            message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
            type: null,
            param: 'prompt',
            code: 'content_filter',
            status: 400,
            innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: FILTERED_VIOLENCE },
          },
        }),
      );
      return;
    }
    if (operation === 'completions' && legacy) {
      const legacyAnswer = await fetch(`${legacy.url}/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, model: 'fake-model' }),
      });
      res.writeHead(legacyAnswer.status, { 'content-type': 'application/json' }).end(await legacyAnswer.text());
      return;
    }
    const answer = await fetch(`${inner.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, model }),
    });
    const answered = await answer.text();
    const parsed = answer.ok ? (JSON.parse(answered) as { choices: { message: { content?: string | null }; finish_reason?: string }[] }) : undefined;
    const choice = parsed?.choices[0];
    if (parsed && choice && options.filter?.completion?.test(choice.message.content ?? '')) {
      // The filtered choice: no content, finish_reason content_filter, its per-category results.
      delete choice.message.content;
      choice.finish_reason = 'content_filter';
      Object.assign(choice, { content_filter_results: FILTERED_VIOLENCE });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(parsed));
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answered);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => error(res, 500, 'InternalServerError', String(err)));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fake server has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await inner.close();
      await legacy?.close();
    },
  };
}
