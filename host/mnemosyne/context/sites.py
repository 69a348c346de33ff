"""How a context names the site a conversation came from (its own module: recall labels passages
without importing the engine)."""

SITE_NAMES = {
    "chatgpt": "ChatGPT",
    "claude": "Claude",
    "openai": "the OpenAI API",
    "anthropic": "the Anthropic API",
    "sharegpt": "a ShareGPT file",
    "openwebui": "Open WebUI",
    "librechat": "LibreChat",
    "sillytavern": "SillyTavern",
    "grok": "Grok",
    "perplexity": "Perplexity",
    "gemini": "Gemini",
    "deepseek": "DeepSeek",
    "ollama": "Ollama",
    "other": "another tool",
}
