"""Looking after a store: review, findings, import and export, consolidation, doctor,
maintenance, quality scenarios, hook receipts and `init`.
"""
