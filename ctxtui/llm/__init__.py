"""The LLM client: an OpenAI-compatible endpoint, its calls, bounded reads, retries."""
