// Placeholder: the Fargate queue consumer entry (replaced by the lead).
export {};
throw new Error('consumer not implemented yet');
