/**
 * The runner functions' network: a VPC of their own in which nothing resolves a name.
 *
 * Security groups and network ACLs do not filter traffic to the Amazon-provided DNS server
 * (VPC User Guide, "Security groups" and "Network ACLs": traffic to and from the Route 53
 * Resolver is not filtered), and that resolver recurses to public names: in a VPC with DNS
 * support on, a program past the sandbox's seccomp filter could carry data out in the names it
 * looks up, whatever the security group says. With `enableDnsSupport` off, queries to the
 * Amazon DNS server (169.254.169.253, and the VPC's base address plus two) do not succeed
 * (EC2 API reference, ModifyVpcAttribute `EnableDnsSupport`).
 *
 * The judges keep DNS in their own VPC (network.ts): they reach SQS, Lambda, ECR and CloudWatch
 * Logs through interface endpoints whose private DNS names only resolve with DNS support on.
 * A runner needs no name and no AWS API (its role denies every request from function code): its
 * judge invokes it through Lambda's API, outside this network, and the runner answers through
 * the Runtime API on the loopback address Lambda gives it (an address, not a name). A Route 53
 * Resolver DNS Firewall rule group blocking `*` would do the same in a shared VPC, at a charge
 * per domain list and per query, and would have to spare the judges' endpoint names.
 *
 * No subnet has a route out (PRIVATE_ISOLATED: no NAT, no internet gateway), no endpoint is
 * added, and the security group has no rule. The VPC, its subnets and its flow logs cost
 * nothing between runs beyond the rejected-traffic log objects.
 */
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { RUNNER_VPC_CIDR } from '../layers/core/selftest/index.ts';

/** Properties of {@link RunnerNetwork}. */
export interface RunnerNetworkProps {
  /** Destination of the VPC flow logs (the access-log bucket). */
  flowLogBucket: s3.IBucket;
}

/** The runners' VPC: isolated subnets, DNS off, a security group with no rule. Its CIDR is the self-test's (its DNS probe asks the VPC's base address plus two). */
export class RunnerNetwork extends Construct {
  readonly vpc: ec2.Vpc;
  readonly subnets: ec2.SubnetSelection = { subnetGroupName: 'runners' };
  /** No ingress, no egress rule. */
  readonly securityGroup: ec2.SecurityGroup;

  constructor(scope: Construct, id: string, props: RunnerNetworkProps) {
    super(scope, id);
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      ipAddresses: ec2.IpAddresses.cidr(RUNNER_VPC_CIDR),
      maxAzs: 2,
      natGateways: 0,
      enableDnsSupport: false,
      enableDnsHostnames: false,
      subnetConfiguration: [{ name: 'runners', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 20 }],
      restrictDefaultSecurityGroup: false,
      flowLogs: {
        s3: {
          destination: ec2.FlowLogDestination.toS3(props.flowLogBucket, 'vpc-flow-logs/runners/'),
          trafficType: ec2.FlowLogTrafficType.REJECT,
        },
      },
    });
    this.securityGroup = new ec2.SecurityGroup(this, 'RunnerSg', {
      vpc: this.vpc,
      description: 'polyeval runners: no ingress, no egress (model code runs here)',
      allowAllOutbound: false,
    });
  }
}
