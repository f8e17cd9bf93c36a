"""The file names of a policy-value export (``PolicyValueModel.save_hf``), shared by the code that
writes it (:mod:`generator.policy_value`) and the code that checks one exists before any work
starts (:class:`generator.hf.ValueHead`), so neither imports the other for them."""

#: the training-time settings in an export
POLICY_CONFIG = "policy_config.json"
#: the value head's weights in an export of the policy-value model
VALUE_HEAD_FILE = "value_head.pt"
