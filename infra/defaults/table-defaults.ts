/** Secure defaults for the DynamoDB run ledger (cdk-nag DDB3: point-in-time recovery). */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';

/** On-demand, PITR, AWS-owned encryption, string keys `pk`/`sk`, retained on stack deletion. */
export function ledgerTableProps(): dynamodb.TableProps {
  return {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: dynamodb.TableEncryption.AWS_MANAGED,
    deletionProtection: true,
    timeToLiveAttribute: 'expires_at',
    removalPolicy: RemovalPolicy.RETAIN,
  };
}
