-- Two new verdict labels (the pipeline contract, citeproof/pipeline.py):
--   needs_review       the judge read the evidence and could not decide;
--   reference_missing  the marker matched no reference entry strictly enough to link it.
ALTER TABLE verdicts DROP CONSTRAINT verdicts_label_check;
ALTER TABLE verdicts ADD CONSTRAINT verdicts_label_check CHECK (label IN (
    'supported', 'partially_supported', 'unsupported', 'contradicted', 'needs_review',
    'reference_missing', 'source_missing', 'source_unreadable', 'not_checkable', 'judge_error'));
