/**
 * The executors' network: a VPC with isolated subnets only (no NAT gateway, no internet
 * gateway, so untrusted code has no route out), gateway endpoints for S3 and DynamoDB whose
 * policies admit only our bucket and ledger, and the few interface endpoints that are needed —
 * all in the judges' `executors` subnets. The runner functions, which run model code, are not
 * here: they have a VPC of their own with DNS off (runner-network.ts).
 *
 * Cost (us-east-1, 2 AZs): gateway endpoints are free; each interface endpoint costs about
 * $0.01/h per AZ (~$14.6/month for 2 AZs) plus $0.01/GB. SQS is always needed (an executor
 * that records a run's last item enqueues the aggregate message), and Lambda (a judge invokes
 * its runner function). ECR (api + dkr) and
 * CloudWatch Logs are needed only by the Fargate lane (image pull, awslogs driver) — Lambda
 * pulls images and ships logs outside the VPC — so `fargateLane=false` saves ~$44/month.
 * X-Ray has no endpoint here (another ~$14.6/month): executors are not traced.
 */
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { LEDGER_WRITER_ACTIONS } from './defaults/iam-statements.ts';
import { Stack } from 'aws-cdk-lib';

/** Properties of {@link Network}. */
export interface NetworkProps {
  bucket: s3.IBucket;
  ledger: dynamodb.ITable;
  /** Destination of the VPC flow logs (the access-log bucket). */
  flowLogBucket: s3.IBucket;
  /** Adds the ECR and CloudWatch Logs interface endpoints the Fargate consumer needs. */
  fargateLane: boolean;
}

/** Interface endpoints by need; see the cost note at the top of this file. */
export function interfaceEndpointServices(fargateLane: boolean): ec2.InterfaceVpcEndpointAwsService[] {
  // Lambda: judges invoke their runner functions (runners.ts); runners' own subnets get no endpoint.
  const always = [ec2.InterfaceVpcEndpointAwsService.SQS, ec2.InterfaceVpcEndpointAwsService.LAMBDA];
  const fargate = [ec2.InterfaceVpcEndpointAwsService.ECR, ec2.InterfaceVpcEndpointAwsService.ECR_DOCKER, ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS];
  return fargateLane ? [...always, ...fargate] : always;
}

/** Isolated VPC + endpoints + the security group executors run in. */
export class Network extends Construct {
  readonly vpc: ec2.Vpc;
  readonly executorSecurityGroup: ec2.SecurityGroup;
  readonly executorSubnets: ec2.SubnetSelection = { subnetGroupName: 'executors' };

  constructor(scope: Construct, id: string, props: NetworkProps) {
    super(scope, id);
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      ipAddresses: ec2.IpAddresses.cidr('10.42.0.0/16'),
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'executors', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 20 }],
      restrictDefaultSecurityGroup: false,
      flowLogs: {
        s3: {
          destination: ec2.FlowLogDestination.toS3(props.flowLogBucket, 'vpc-flow-logs/'),
          trafficType: ec2.FlowLogTrafficType.REJECT,
        },
      },
    });

    const s3Endpoint = this.vpc.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3, subnets: [this.executorSubnets] });
    s3Endpoint.addToPolicy(
      new iam.PolicyStatement({
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:GetObject', 's3:PutObject', 's3:ListBucket'],
        resources: [props.bucket.bucketArn, props.bucket.arnForObjects('*')],
      }),
    );
    if (props.fargateLane) {
      // ECR serves image layers from this AWS-owned bucket through the S3 endpoint.
      s3Endpoint.addToPolicy(
        new iam.PolicyStatement({
          principals: [new iam.AnyPrincipal()],
          actions: ['s3:GetObject'],
          resources: [`arn:${Stack.of(this).partition}:s3:::prod-${Stack.of(this).region}-starport-layer-bucket/*`],
        }),
      );
    }
    const dynamoEndpoint = this.vpc.addGatewayEndpoint('DynamoDb', {
      service: ec2.GatewayVpcEndpointAwsService.DYNAMODB,
      subnets: [this.executorSubnets],
    });
    dynamoEndpoint.addToPolicy(
      new iam.PolicyStatement({
        principals: [new iam.AnyPrincipal()],
        actions: [...LEDGER_WRITER_ACTIONS],
        resources: [props.ledger.tableArn],
      }),
    );

    this.executorSecurityGroup = new ec2.SecurityGroup(this, 'ExecutorSg', {
      vpc: this.vpc,
      description: 'polyeval executors: HTTPS out to the VPC endpoints only (no internet route exists)',
      allowAllOutbound: false,
    });
    // Gateway endpoints are reached at the services' public prefixes through the route table,
    // so egress names 443 to anywhere; without an internet route nothing else is reachable.
    this.executorSecurityGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'HTTPS to S3/DynamoDB gateway and interface endpoints');

    for (const service of interfaceEndpointServices(props.fargateLane)) {
      const name = service.shortName.replace(/[^a-zA-Z0-9]/g, '');
      this.vpc
        .addInterfaceEndpoint(`${name}Endpoint`, {
          service,
          subnets: this.executorSubnets,
          privateDnsEnabled: true,
          // Only the executors may reach the endpoints, not the whole VPC CIDR.
          open: false,
        })
        .connections.allowFrom(this.executorSecurityGroup, ec2.Port.tcp(443), 'HTTPS from polyeval executors');
    }
  }
}
