/**
 * Where alarms go: one SNS topic that every CloudWatch alarm of the stack notifies (an aspect
 * adds the action, so an alarm added by any construct, now or later, is covered), with an
 * e-mail subscription when `-c alarmEmail=…` is given.
 */
import { Aspects, Stack, type IAspect } from 'aws-cdk-lib';
import { StepScalingPolicy } from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct, type IConstruct } from 'constructs';
import { acknowledge } from './nag.ts';

/**
 * Adds `topic` as the alarm action of every {@link cloudwatch.Alarm} it visits, except the
 * alarms of step-scaling policies: they fire whenever a queue's depth crosses a step, which is
 * scaling, not trouble.
 */
export class NotifyOnAlarm implements IAspect {
  constructor(private readonly topic: sns.ITopic) {}

  visit(node: IConstruct): void {
    if (node instanceof cloudwatch.Alarm && !(node.node.scope instanceof StepScalingPolicy)) node.addAlarmAction(new SnsAction(this.topic));
  }
}

/** Properties of {@link Alerts}. */
export interface AlertsProps {
  /** E-mail address subscribed to the topic (it must confirm the subscription once). */
  email?: string;
}

/** The alarm topic, its optional e-mail subscription, and the aspect wiring every alarm to it. */
export class Alerts extends Construct {
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string, props: AlertsProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'Topic', { displayName: `${Stack.of(this).stackName} alarms`, enforceSSL: true });
    if (props.email !== undefined) this.topic.addSubscription(new EmailSubscription(props.email));
    acknowledge(
      this.topic,
      'AwsSolutions-SNS2',
      'Alarm notifications carry alarm names, thresholds and metric values only. CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer key would cost more than the data is worth protecting.',
    );
    Aspects.of(Stack.of(this)).add(new NotifyOnAlarm(this.topic));
  }
}
