"""Step 3: the toy backend's stock tactics, a template set over its language."""

from __future__ import annotations

from generator.template import Template, TemplateSet
from toy_backend.language import TOY

TEMPLATES = TemplateSet(TOY, (Template("cheat", -0.1), Template("split", -0.5), Template("apply {premise}", -1.0)))
