import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("RAY_AUTH_MODE", "disabled")
os.environ.setdefault("DISABLE_REMOTE_CACHE", "1")
sys.path.insert(0, str(Path(__file__).parent))
