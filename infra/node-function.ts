/**
 * A NodejsFunction with polyeval's defaults: Node.js 22, selectable architecture, local esbuild
 * bundling, Powertools settings, X-Ray tracing, its own log group with a retention period, and
 * its own role that may only write that log group until the caller grants more.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Architecture } from './config.ts';
import { NODE_RUNTIME, lambdaArchitecture, localBundlingOptions, powertoolsEnvironment } from './defaults/function-defaults.ts';
import { acknowledge } from './nag.ts';
import { PROJECT_ROOT, handlerEntry } from './paths.ts';

/** Properties of {@link PolyevalFunction}. */
export interface PolyevalFunctionProps {
  /** Folder under `functions/` and Powertools service name (`api`, `plan`, …). */
  name: string;
  architecture: Architecture;
  logRetentionDays: number;
  timeout: Duration;
  memorySize: number;
  environment: Record<string, string>;
  description: string;
  /** Reserved concurrency; unset: the account's unreserved pool. */
  reservedConcurrentExecutions?: number;
}

/** One thin handler from `functions/<name>/handler.ts` (export `handler`). */
export class PolyevalFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: PolyevalFunctionProps) {
    super(scope, id);
    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `polyeval ${props.name} function`,
    });
    logGroup.grantWrite(this.role);
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: handlerEntry(props.name),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      runtime: NODE_RUNTIME,
      architecture: lambdaArchitecture(props.architecture),
      timeout: props.timeout,
      memorySize: props.memorySize,
      description: props.description,
      ...(props.reservedConcurrentExecutions === undefined ? {} : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      role: this.role,
      logGroup,
      tracing: lambda.Tracing.ACTIVE,
      environment: { ...powertoolsEnvironment(props.name), ...props.environment },
      bundling: localBundlingOptions(),
    });
    acknowledge(
      this.role,
      'AwsSolutions-IAM5[Resource::*]',
      'X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions; they are the only Resource::* statement.',
    );
    acknowledge(
      this.function,
      'AwsSolutions-L1',
      'Node.js 22 on purpose: the executor images use the matching public.ecr.aws/lambda/nodejs:22 base, and every function moves to the next runtime together.',
    );
  }
}
