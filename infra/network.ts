/**
 * The Fargate lane's network (deployed only with `-c fargateLane=true`): a VPC with isolated
 * subnets only (no NAT gateway, no internet gateway), gateway endpoints for S3 and DynamoDB
 * whose policies admit only our bucket and ledger, and the interface endpoints a Fargate judge
 * needs, all in the `executors` subnets. The runner functions, which run model code, are not
 * here: they have a VPC of their own with DNS off (runner-network.ts). The Lambda judges are in
 * no VPC at all (executors.ts): they reach S3, DynamoDB, SQS and Lambda at the services' public
 * endpoints, as the plan, generate and aggregate functions do, so the default stack has no
 * interface endpoint and no NAT gateway.
 *
 * Cost (us-east-1, 2 AZs; "AWS PrivateLink pricing", https://aws.amazon.com/privatelink/pricing/,
 * read 2026-12-06): gateway endpoints are free; each interface endpoint is billed per AZ and
 * hour while it exists ($0.01, AWS_PRICES.interfaceEndpointAzHour), plus $0.01/GB. A Fargate
 * task in isolated subnets needs five: SQS (its queue and the aggregate queue), Lambda (it
 * invokes its runner), ECR API and ECR Docker (image pull) and CloudWatch Logs (awslogs
 * driver): 5 × 2 AZs × 730 h ≈ $73/month, which is why the lane is opt-in.
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
  /** Whether the Fargate lane is deployed (the only user of this network and its interface endpoints). */
  fargateLane: boolean;
}

/** Interface endpoints by need; see the cost note at the top of this file. */
export function interfaceEndpointServices(fargateLane: boolean): ec2.InterfaceVpcEndpointAwsService[] {
  // Without the lane nothing is in this VPC (the stack does not deploy it). Lambda: a Fargate
  // judge invokes its runner function (runners.ts); runners' own subnets get no endpoint.
  if (!fargateLane) return [];
  return [
    ec2.InterfaceVpcEndpointAwsService.SQS,
    ec2.InterfaceVpcEndpointAwsService.LAMBDA,
    ec2.InterfaceVpcEndpointAwsService.ECR,
    ec2.InterfaceVpcEndpointAwsService.ECR_DOCKER,
    ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS,
  ];
}

/** Isolated VPC + endpoints + the security group the Fargate lane's tasks run in. */
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
    // ECR serves image layers from this AWS-owned bucket through the S3 endpoint.
    s3Endpoint.addToPolicy(
      new iam.PolicyStatement({
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:GetObject'],
        resources: [`arn:${Stack.of(this).partition}:s3:::prod-${Stack.of(this).region}-starport-layer-bucket/*`],
      }),
    );
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
